import { IssueStatusSchema, type IssueStatus } from '@preflight/contract';
import { z } from 'zod';

/**
 * How Jira statuses and Linear workflow states relate to Preflight statuses: the connection's
 * map by state name (`statusMap` / `stateMap`, names compared case-insensitively), then a
 * default by the state's category (Linear's state type). Inbound, a state means one status or
 * none; outbound, a status picks the state meaning exactly it, else one of the same group.
 */

type StatusGroup = 'open' | 'done' | 'wont';

const GROUP_OF: Record<IssueStatus, StatusGroup> = {
  New: 'open',
  Acknowledged: 'open',
  InProgress: 'open',
  RetestFailed: 'open',
  Fixed: 'done',
  RetestRequested: 'done',
  RetestFixed: 'done',
  Closed: 'done',
  WontFix: 'wont',
  Duplicate: 'wont',
};

/** A tracker state: its name and, where the tracker has one, its category (Linear's state type). */
export interface TrackerState {
  name: string;
  category?: string | null;
}

/** A connection's map from tracker state names to Preflight statuses. */
export type StateNameMap = Record<string, IssueStatus>;

/** The zod schema of a `statusMap` / `stateMap` config property. */
export const stateNameMapSchema = (what: string) =>
  z
    .record(z.string().trim().min(1, `Must name a ${what}.`).max(255, 'Must be at most 255 characters.'), IssueStatusSchema, {
      error: `Must be an object from ${what} names to Preflight statuses.`,
    })
    .refine((map) => Object.keys(map).length <= 100, 'Must have at most 100 entries.');

export interface StatusMapping {
  /** The Preflight status a tracker state means; null when neither the map nor the category says. */
  statusOf(state: TrackerState): IssueStatus | null;
  /**
   * The state to move to for `status`, among `current` (staying is preferred when it already
   * means `status`, or has no exact match elsewhere but is in the same group) and `candidates`;
   * null when no state fits.
   */
  pick<S extends TrackerState>(status: IssueStatus, current: S | null, candidates: readonly S[]): S | null;
}

const key = (name: string) => name.trim().toLowerCase();

export function statusMapping(byName: StateNameMap, byCategory: Readonly<Record<string, IssueStatus>> = {}): StatusMapping {
  const names = new Map(Object.entries(byName).map(([name, status]) => [key(name), status]));
  const statusOf = (state: TrackerState): IssueStatus | null =>
    names.get(key(state.name)) ?? (state.category && Object.hasOwn(byCategory, state.category) ? (byCategory[state.category] ?? null) : null);
  const groupOf = (state: TrackerState): StatusGroup | null => {
    const status = statusOf(state);
    return status ? GROUP_OF[status] : null;
  };
  return {
    statusOf,
    pick(status, current, candidates) {
      if (current && statusOf(current) === status) return current;
      const exact = candidates.find((s) => statusOf(s) === status);
      if (exact) return exact;
      const group = GROUP_OF[status];
      if (current && groupOf(current) === group) return current;
      return candidates.find((s) => groupOf(s) === group) ?? null;
    },
  };
}
