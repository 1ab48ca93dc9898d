import type pg from 'pg';
import { insertChunks } from './sessions.ts';
import { BIG_CAMPAIGN, EMPTY_CAMPAIGN, KIND, OPEN_CAMPAIGN, hashSql, idSql, orgOfCampaignSql, smallCampaign, smallOpenCampaign, smallOrg, type ScalePlan } from './plan.ts';

/**
 * The issue schema's rows (services/issue migrations 0001–0004): the campaign directory the
 * campaign events would have built, the issues with 3–5 history entries each, and the
 * per-campaign sequence counters and issue counts that match them. Issues are numbered globally (`n`); a segment
 * is a run of numbers that maps onto one campaign, or round-robin onto many.
 */

/** A run of issue numbers [from, to) and the SQL of its campaign number and seqNumber for `n`. */
export interface IssueSegment {
  label: string;
  from: number;
  to: number;
  campaign: string;
  seq: string;
  /** Every issue open (3 or 4 history entries: InProgress or Fixed), else 3–5 (Closed at 5). */
  allOpen: boolean;
}

export function issueSegments(p: ScalePlan): IssueSegment[] {
  const big = p.bigCampaignIssues;
  const open = big + p.openCampaignIssues;
  // Campaigns 3 … campaigns − 1 share the rest round-robin (campaign 2 stays empty).
  const rest = p.campaigns - (EMPTY_CAMPAIGN + 1);
  const small = p.issues + p.small.issues;
  return [
    { label: 'the big campaign', from: 0, to: big, campaign: String(BIG_CAMPAIGN), seq: `n + 1`, allOpen: false },
    { label: 'the all-open campaign', from: big, to: open, campaign: String(OPEN_CAMPAIGN), seq: `n - ${big} + 1`, allOpen: true },
    { label: 'the other campaigns', from: open, to: p.issues, campaign: `${EMPTY_CAMPAIGN + 1} + (n - ${open}) % ${rest}`, seq: `(n - ${open}) / ${rest} + 1`, allOpen: false },
    { label: 'the small set', from: p.issues, to: small, campaign: String(smallCampaign(p)), seq: `n - ${p.issues} + 1`, allOpen: false },
    { label: 'the small open campaign', from: small, to: small + p.small.openIssues, campaign: String(smallOpenCampaign(p)), seq: `n - ${small} + 1`, allOpen: true },
  ];
}

/** The organisation number of campaign number `c` (SQL), the small set's campaigns included. */
export function orgOfAnyCampaignSql(p: ScalePlan, c: string): string {
  return `(case when (${c}) >= ${p.campaigns} then ${smallOrg(p)} else ${orgOfCampaignSql(p, c)} end)`;
}

/** Issues per statement: large enough to amortise, small enough to report progress. */
const CHUNK = 50_000;
const SEVERITIES = `array['Critical', 'High', 'Medium', 'Low', 'Trivial']`;
const TYPES = `array['Bug', 'UxFeedback', 'ContentError', 'PerformanceIssue', 'AccessibilityIssue', 'Other']`;
/** The workflow path every loaded issue took: entry j (1-based) moved it to the j-th status. */
const PATH = `array['New', 'Acknowledged', 'InProgress', 'Fixed', 'Closed']`;
const YEAR_MS = 365 * 86_400_000;

/** Severity rank 0 (Critical) … 4 (Trivial): 5 %, 20 %, 40 %, 25 %, 10 %. */
const rankSql = (n: string) => {
  const h = hashSql(n, 2, 100);
  return `(case when ${h} < 5 then 0 when ${h} < 25 then 1 when ${h} < 65 then 2 when ${h} < 90 then 3 else 4 end)`;
};

/** Loads the issue schema, its issue statements spread over `clients` (one per core: they are CPU-bound on the server). */
export async function loadIssueSchema(clients: pg.Client[], schema: string, p: ScalePlan, nowMs: number, log: (msg: string) => void): Promise<void> {
  const q = (text: string) => clients[0]!.query(text);
  const s = `"${schema}"`;
  const allCampaigns = p.campaigns + 2;
  const yearAgo = nowMs - YEAR_MS;
  // Campaign c was created at yearAgo + c × (a year / campaigns); its directory row is what CampaignCreated left.
  await q(
    `insert into ${s}.campaign_directory (campaign_id, org_id, name, status, site_id, site_name, created_at, source_occurred_at, refreshed_at)
     select ${idSql(KIND.campaign, 'c')}, ${idSql(KIND.org, orgOfAnyCampaignSql(p, 'c'))}, 'Campaign ' || c, 'Active',
       ${idSql(KIND.site, orgOfAnyCampaignSql(p, 'c'))}, 'Site ' || ${orgOfAnyCampaignSql(p, 'c')},
       to_timestamp((${yearAgo} + c * ${Math.floor(YEAR_MS / allCampaigns)}) / 1000.0), now(), now()
     from generate_series(0::bigint, ${allCampaigns - 1}) as c`,
  );
  log(`issue schema: ${allCampaigns.toLocaleString('en-US')} campaign directory rows`);

  const total = p.issues + p.small.issues + p.small.openIssues;
  const chunks = issueSegments(p).flatMap((seg) =>
    Array.from({ length: Math.ceil((seg.to - seg.from) / CHUNK) }, (_, k) => ({ seg, from: seg.from + k * CHUNK, to: Math.min(seg.to, seg.from + (k + 1) * CHUNK) })),
  );
  const insert = async (client: pg.Client, { seg, from, to }: (typeof chunks)[number]) => {
    const entries = seg.allOpen ? `3 + ${hashSql('n', 1, 2)}` : `3 + ${hashSql('n', 1, 3)}`;
    // One statement: the issues and their history entries (New → … → the issue's status, an hour apart).
    await client.query(
      `with src as (
         select n, ${seg.campaign} as c, ${seg.seq} as seq, ${entries} as k, ${rankSql('n')} as rank,
           to_timestamp((${yearAgo} + n * ${Math.floor(YEAR_MS / total)}) / 1000.0) as at
         from generate_series(${from}::bigint, ${to - 1}) as n
       ), issue as (
         insert into ${s}.issues (id, org_id, campaign_id, seq_number, title, description, steps_to_reproduce, expected_behavior,
           actual_behavior, severity, severity_rank, type, status, page_url, page_title, browser_name, browser_version,
           operating_system, device_type, screen_resolution, reporter, revision, created_at, updated_at)
         select ${idSql(KIND.issue, 'n')}, ${idSql(KIND.org, orgOfAnyCampaignSql(p, 'c'))}, ${idSql(KIND.campaign, 'c')}, seq,
           'Checkout fails on step ' || (seq % 7 + 1) || ' (#' || seq || ')',
           'The payment form rejects a valid card and shows an empty error banner; reproduced on every attempt since the last deploy.',
           '1. Add an item to the basket' || chr(10) || '2. Pay with the test card', 'The order is placed.', 'An empty error banner.',
           (${SEVERITIES})[rank + 1], rank, (${TYPES})[${hashSql('n', 3, 6)} + 1], (${PATH})[k],
           'https://shop.example.com/checkout/' || (n % 50), 'Checkout', 'Chrome', '131.0', 'macOS 15', 'desktop', '1920x1080',
           'API key bench', k, at, at + (k - 1) * interval '1 hour'
         from src
         returning id, revision, created_at
       )
       insert into ${s}.issue_history (issue_id, from_status, to_status, reason, occurred_at)
       select issue.id, case when j = 1 then null else (${PATH})[j - 1] end, (${PATH})[j], null, issue.created_at + (j - 1) * interval '1 hour'
       from issue, generate_series(1, issue.revision) as j`,
    );
  };
  await insertChunks(clients, chunks, {
    rowsOf: (c) => c.to - c.from,
    total,
    insert,
    progress: (done) => log(`issue schema: ${done.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} issues, with their history`),
  });
  // The counters the create path moves: the last seqNumber of every campaign that has issues,
  // and the issue counts by severity and status the lists read (as migration 0004 fills them).
  await q(`insert into ${s}.campaign_sequences (campaign_id, last_seq) select campaign_id, max(seq_number) from ${s}.issues group by campaign_id`);
  await q(`insert into ${s}.issue_counts (campaign_id, severity_rank, status, n) select campaign_id, severity_rank, status, count(*) from ${s}.issues group by 1, 2, 3`);
}
