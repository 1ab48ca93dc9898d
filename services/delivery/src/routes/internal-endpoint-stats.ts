import { z } from 'zod';
import { EndpointStatsRequestSchema } from '@preflight/contract';
import { parseBody } from '@preflight/http';
import { route } from '@preflight/service-kit';
import { endpointStats } from '../storage/endpoint-stats.ts';
import type { Registration } from './context.ts';

/** Endpoints per call at most: a settings page lists an organisation's endpoints. */
export const MAX_STATS_IDS = 500;

/** What this service asks of the ids beyond the caller's contract: webhook ids, and not too many of them. */
const StatsIdsSchema = EndpointStatsRequestSchema.extend({ ids: z.array(z.uuid({ error: 'ids must be webhook ids.' })).max(MAX_STATS_IDS) });

/**
 * POST /internal/v1/endpoint-stats `{ids}`: for the webhook service's admin list, each
 * endpoint's `stats` (admin-api-v1.md). The gateway never routes /internal.
 */
export const register: Registration = (app, { db }) =>
  route(app, 'internalEndpointStats', async (_req, _res, io) => {
    const { ids } = parseBody(StatsIdsSchema, io.body);
    io.send({ stats: await endpointStats(db, ids.map((id) => id.toLowerCase())) });
  });
