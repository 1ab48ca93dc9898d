import { notFound, pathId } from '@preflight/http';
import type { Kysely } from '@preflight/db';
import { organizationExists } from '../storage/organizations.ts';
import type { IdentityDb } from '../storage/schema.ts';

/** The `:orgId` of a path, or a 404 when it names no organisation (a malformed id included). */
export async function existingOrgId(db: Kysely<IdentityDb>, raw: string | undefined): Promise<string> {
  const orgId = pathId(raw, 'organization');
  if (!(await organizationExists(db, orgId))) throw notFound('organization', orgId);
  return orgId;
}
