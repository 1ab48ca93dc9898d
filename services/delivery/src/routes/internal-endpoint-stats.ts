import { z } from 'zod';
import { parseBody, sendJson } from '@preflight/http';
import { endpointStats } from '../storage/endpoint-stats.ts';
import type { Registration } from './context.ts';

/** Endpoints per call at most: a settings page lists an organisation's endpoints. */
export const MAX_STATS_IDS = 500;

const StatsRequestSchema = z.object({ ids: z.array(z.uuid({ error: 'ids must be webhook ids.' })).max(MAX_STATS_IDS) });

/**
 * POST /internal/v1/endpoint-stats `{ids}`: for the webhook service's admin list, each
 * endpoint's `stats` (admin-api-v1.md). The gateway never routes /internal.
 */
export const register: Registration = (app, { db }) => {
  app.post('/internal/v1/endpoint-stats', async (req, res) => {
    const { ids } = parseBody(StatsRequestSchema, req.body);
    sendJson(req, res, 200, { stats: await endpointStats(db, ids.map((id) => id.toLowerCase())) });
  });
};
