/**
 * What the scale loader makes, as counts and as SQL that names each row's id: a year of a large
 * customer (issue 25) times `--scale`. Every id is a function of the seed, a kind and a row
 * number, so the loader can build any row in SQL (generate_series; nothing crosses the wire)
 * and the harness can name the same rows without reading them back. Rows of one kind get
 * ascending ids in row order, so the loader's inserts append to the primary-key indexes.
 */

/** The data set's seed: the same seed and scale make the same rows. */
export const SCALE_SEED = 25;

/** Row kinds, the second group of their ids. */
export const KIND = { org: 1, site: 2, campaign: 3, issue: 4, delivery: 5, event: 6 } as const;

export interface ScalePlan {
  scale: number;
  /** Organisations; org 0 is the large customer (1,000 campaigns), org 1 holds the 50 webhooks. */
  orgs: number;
  campaigns: number;
  /** Campaigns of org 0 (numbers 0 … bigOrgCampaigns − 1); the others go round the remaining organisations. */
  bigOrgCampaigns: number;
  issues: number;
  /** Campaign 0: the campaign of the deep pages. */
  bigCampaignIssues: number;
  /** Campaign 1: every issue open, for the readiness projection's cost per event. */
  openCampaignIssues: number;
  /** Campaign 2: no issues, the create baseline ("an empty one"). */
  webhooks: number;
  attempts: number;
  /** Days the delivery log's attempts are spread over, ending now. */
  logDays: number;
  /** The small data set (not scaled): a second organisation of its own. */
  small: { issues: number; openIssues: number; attempts: number };
}

export function scalePlan(scale: number): ScalePlan {
  const n = (full: number, min: number) => Math.max(min, Math.round(full * scale));
  const orgs = n(1_000, 3);
  const bigOrgCampaigns = n(1_000, 4);
  return {
    scale,
    orgs,
    campaigns: Math.max(bigOrgCampaigns + orgs, n(10_000, 0)),
    bigOrgCampaigns,
    issues: n(1_000_000, 1_000),
    bigCampaignIssues: n(200_000, 500),
    openCampaignIssues: n(100_000, 100),
    webhooks: 50,
    attempts: n(10_000_000, 10_000),
    logDays: 30,
    small: { issues: 500, openIssues: 10, attempts: 500 },
  };
}

/**
 * Campaign numbers: 0 the big one, 1 the all-open one, 2 the empty one; the small set's two
 * campaigns come after the loaded ones (`smallCampaign`, `smallOpenCampaign`).
 */
export const BIG_CAMPAIGN = 0;
export const OPEN_CAMPAIGN = 1;
export const EMPTY_CAMPAIGN = 2;
export const smallCampaign = (p: ScalePlan) => p.campaigns;
export const smallOpenCampaign = (p: ScalePlan) => p.campaigns + 1;
/** The small set's organisation: after the loaded ones. */
export const smallOrg = (p: ScalePlan) => p.orgs;
/** The organisation with the 50 webhook endpoints (not the big one: creating issues there must not fan out). */
export const WEBHOOK_ORG = 1;

const hex = (v: number, width: number) => v.toString(16).padStart(width, '0');
const SEED_HEX = hex(SCALE_SEED, 8);

/** The id of row `n` of `kind`: a valid RFC 4122 (version 4, variant 1) uuid, ascending in `n`. */
export function idOf(kind: number, n: number): string {
  const h = hex(n, 18);
  return `${SEED_HEX}-${hex(kind, 4)}-4${h.slice(0, 3)}-8${h.slice(3, 6)}-${h.slice(6)}`;
}

/** `idOf` in SQL, for a bigint expression `n`. */
export function idSql(kind: number, n: string): string {
  const h = `lpad(to_hex((${n})::bigint), 18, '0')`;
  return `('${SEED_HEX}-${hex(kind, 4)}-4' || substr(${h}, 1, 3) || '-8' || substr(${h}, 4, 3) || '-' || substr(${h}, 7, 12))::uuid`;
}

/**
 * A deterministic pseudo-random integer in [0, mod) of a bigint expression `n` and a salt, in
 * SQL: a multiplicative hash (Knuth's constant) of the seed, salt and row number. Cheap per
 * row and the same in every run.
 */
export function hashSql(n: string, salt: number, mod: number): string {
  return `((((${n})::bigint + ${SCALE_SEED * 7919 + salt * 104729}) * 2654435761) % 4294967291 % ${mod})`;
}

/** The organisation campaign number `c` belongs to, in SQL (the same rule as `orgOfCampaign`). */
export function orgOfCampaignSql(p: ScalePlan, c: string): string {
  return `(case when (${c}) < ${p.bigOrgCampaigns} then 0 else 1 + ((${c}) - ${p.bigOrgCampaigns}) % ${p.orgs - 1} end)`;
}

export function orgOfCampaign(p: ScalePlan, c: number): number {
  if (c === smallCampaign(p) || c === smallOpenCampaign(p)) return smallOrg(p);
  return c < p.bigOrgCampaigns ? 0 : 1 + ((c - p.bigOrgCampaigns) % (p.orgs - 1));
}
