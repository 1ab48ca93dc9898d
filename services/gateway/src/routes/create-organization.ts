import { z } from 'zod';
import { requiredText } from '@preflight/contract';
import { parseBody, sendJson } from '@preflight/http';
import { insertOrganization } from '../storage/organizations.ts';
import type { LocalEndpoint } from '../routing/route.ts';

export const MAX_NAME = 200;
const CreateOrganizationSchema = z.strictObject({ name: requiredText(MAX_NAME) });

/** POST /admin/v1/organizations → 201 {id, name, createdAt}. */
export const createOrganization: LocalEndpoint = {
  async handle({ req, res, deps }) {
    const { name } = parseBody(CreateOrganizationSchema, req.body);
    const org = await insertOrganization(deps.db, name);
    res.locals.auditOrgId = org.id; // the audit entry names the organisation it created
    sendJson(req, res, 201, { id: org.id, name: org.name, createdAt: org.createdAt.toISOString() });
  },
};
