import type { SiteRow } from '../storage/schema.ts';

/** A site as the admin API shows it. */
export interface AdminSite {
  id: string;
  name: string;
  url: string | null;
  createdAt: string;
}

export function toAdminSite(row: SiteRow): AdminSite {
  return { id: row.id, name: row.name, url: row.url, createdAt: row.created_at.toISOString() };
}
