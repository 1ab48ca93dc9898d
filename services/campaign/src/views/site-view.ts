import type { ResponseOf } from '@preflight/contract';
import type { SiteRow } from '../storage/schema.ts';

/** A site as the admin API shows it. */
export function toAdminSite(row: SiteRow): ResponseOf<'adminCreateSite'> {
  return { id: row.id, name: row.name, url: row.url, createdAt: row.created_at.toISOString() };
}
