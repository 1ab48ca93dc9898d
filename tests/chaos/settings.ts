/** The suite's settings, apart from the suite itself: run.ts reads them before it may load anything that reads TEST_DATABASE_URL & co. */
export interface ChaosSettings {
  /** Issues filed per second, all organisations together. */
  rate: number;
  orgs: number;
  campaignsPerOrg: number;
  /** Seconds of load with no fault, first. */
  baselineS: number;
  /** Seconds of load before each fault. */
  settleS: number;
  /** Seconds of load after the faulted thing is back, before the next fault. */
  recoveryS: number;
  /** Seconds NATS and Redis stay down between their kill -9 and their restart (Postgres: between the immediate stop and the start). */
  holdS: number;
  /** At most this long for every stored issue's events to arrive once the load stopped. */
  drainS: number;
  faults: FaultName[];
  /** Share of filings sent with an Idempotency-Key (a fresh one each), 0–1. */
  keyedShare: number;
  slack: boolean;
  built: boolean;
}

export const SERVICE_FAULTS = ['gateway', 'campaign', 'issue', 'webhook', 'delivery', 'integration'] as const;
export const DEPENDENCY_FAULTS = ['nats', 'redis', 'postgres'] as const;
export const FAULTS = [...SERVICE_FAULTS, ...DEPENDENCY_FAULTS] as const;
export type FaultName = (typeof FAULTS)[number];

export const DEFAULT_SETTINGS: ChaosSettings = {
  rate: 20,
  orgs: 4,
  campaignsPerOrg: 2,
  baselineS: 10,
  settleS: 3,
  recoveryS: 12,
  holdS: 2,
  drainS: 180,
  faults: [...FAULTS],
  keyedShare: 0.5,
  slack: true,
  built: false,
};

