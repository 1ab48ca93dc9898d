import { createHash } from 'node:crypto';

/**
 * Live regions are htmx polls (`hx-trigger="every Ns"`) of a fragment URL that carries a
 * fingerprint of what the page shows (`?seen=`). While the data is unchanged the console answers
 * 204, which htmx leaves alone: nothing is re-rendered or re-announced, and no HTML is sent.
 */
export function fingerprint(parts: unknown): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 16);
}

/** True when the poll already shows `current`: answer 204. */
export function unchanged(seen: unknown, current: string): boolean {
  return typeof seen === 'string' && seen === current;
}
