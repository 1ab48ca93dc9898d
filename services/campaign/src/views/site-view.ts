import type { ResponseOf } from '@preflight/contract';
import type { Site } from '../storage/schema.ts';

/** A site as the admin API shows it. */
export function toAdminSite(site: Site): ResponseOf<'adminCreateSite'> {
  return { id: site.id, name: site.name, url: site.url, createdAt: site.createdAt.toISOString() };
}
