import type pg from 'pg';
import { orgOfAnyCampaignSql } from './issues.ts';
import { KIND, idSql, type ScalePlan } from './plan.ts';

/**
 * The gateway's organisations and the campaign schema's rows (services/campaign migrations
 * 0001–0004): sites, campaigns with their launch history, and the readiness projection the
 * campaign service would have built from the issue events (issue_projection, one row per issue;
 * campaign_issue_stats; each campaign's verdict, gate and open-set digest under the default
 * policy). Run after the issue schema is loaded: the projection is read from it.
 */

const YEAR_MS = 365 * 86_400_000;
/** The statuses that keep an issue open (domain/launch-policy.ts ISSUE_IS_OPEN). */
const OPEN = `status not in ('Closed', 'WontFix', 'Duplicate', 'RetestFixed')`;

export async function loadOrganisations(client: pg.Client, schema: string, p: ScalePlan, nowMs: number): Promise<void> {
  const yearAgo = nowMs - YEAR_MS;
  await client.query(
    `insert into "${schema}".organizations (id, name, created_at)
     select ${idSql(KIND.org, 'o')}, 'Scale org ' || o, to_timestamp((${yearAgo} - 86400000 + o) / 1000.0)
     from generate_series(0::bigint, ${p.orgs}) as o`,
  );
}

export async function loadCampaignSchema(client: pg.Client, schema: string, issueSchema: string, p: ScalePlan, nowMs: number, log: (msg: string) => void): Promise<void> {
  const q = (text: string) => client.query(text);
  const s = `"${schema}"`;
  const yearAgo = nowMs - YEAR_MS;
  const allCampaigns = p.campaigns + 2;
  await q(
    `insert into ${s}.sites (id, org_id, name, url, created_at)
     select ${idSql(KIND.site, 'o')}, ${idSql(KIND.org, 'o')}, 'Site ' || o, 'https://shop.example.com', to_timestamp((${yearAgo} - 3600000 + o) / 1000.0)
     from generate_series(0::bigint, ${p.orgs}) as o`,
  );
  // The same creation times as the issue service's directory rows; launched (Draft → Active) a day later.
  await q(
    `insert into ${s}.campaigns (id, org_id, site_id, name, status, readiness_level, gate, created_at, updated_at)
     select ${idSql(KIND.campaign, 'c')}, ${idSql(KIND.org, orgOfAnyCampaignSql(p, 'c'))}, ${idSql(KIND.site, orgOfAnyCampaignSql(p, 'c'))},
       'Campaign ' || c, 'Active', 'ReadyToLaunch', 'cleared', at, at + interval '1 day'
     from (select c, to_timestamp((${yearAgo} + c * ${Math.floor(YEAR_MS / allCampaigns)}) / 1000.0) as at from generate_series(0::bigint, ${allCampaigns - 1}) as c) g`,
  );
  await q(
    `insert into ${s}.campaign_status_history (campaign_id, from_status, to_status, occurred_at)
     select id, 'Draft', 'Active', updated_at from ${s}.campaigns`,
  );
  log(`campaign schema: ${p.orgs + 1} sites, ${allCampaigns.toLocaleString('en-US')} campaigns`);

  // The projection: each issue's newest state, as IssueCreated and the status changes left it.
  await q(
    `insert into ${s}.issue_projection (issue_id, campaign_id, org_id, severity, status, revision, updated_at, tester_email)
     select id, campaign_id, org_id, severity, status, revision, updated_at, tester_email from "${issueSchema}".issues`,
  );
  // Per campaign: issues per (severity, status), and the size and XOR of md5(id) halves of the
  // open set, as storage/issue-projection.ts keeps them (migration 0004's arithmetic).
  await q(
    `insert into ${s}.campaign_issue_stats (campaign_id, counts, open_count, open_hash_hi, open_hash_lo)
     select campaign_id, jsonb_object_agg(k, n), coalesce(sum(o), 0), coalesce(bit_xor(hi), 0), coalesce(bit_xor(lo), 0)
     from (
       select campaign_id, coalesce(severity, '') || '/' || status as k, count(*) as n,
         count(*) filter (where ${OPEN}) as o,
         bit_xor(('x' || substr(md5(issue_id::text), 1, 16))::bit(64)::bigint) filter (where ${OPEN}) as hi,
         bit_xor(('x' || substr(md5(issue_id::text), 17, 16))::bit(64)::bigint) filter (where ${OPEN}) as lo
       from ${s}.issue_projection group by campaign_id, severity, status
     ) g
     group by campaign_id`,
  );
  // The verdict under the default policy (any open Critical: DoNotLaunch; else any open High:
  // AtRisk), no signers (the gate follows the level), and the digest of the open set.
  await q(
    `update ${s}.campaigns c set
       readiness_level = case when v.critical > 0 then 'DoNotLaunch' when v.high > 0 then 'AtRisk' when v.open_count > 0 then 'ReadyWithIssues' else 'ReadyToLaunch' end,
       gate = case when v.critical + v.high > 0 then 'not-cleared' else 'cleared' end,
       report_open_digest = case when v.open_count > 0 then 'xor:' || v.open_count || ':' || v.open_hash_hi || ':' || v.open_hash_lo else md5('') end
     from (
       select st.campaign_id, st.open_count, st.open_hash_hi, st.open_hash_lo,
         coalesce((select sum(value::int) from jsonb_each_text(st.counts) e where e.key like 'Critical/%' and split_part(e.key, '/', 2) not in ('Closed', 'WontFix', 'Duplicate', 'RetestFixed')), 0) as critical,
         coalesce((select sum(value::int) from jsonb_each_text(st.counts) e where e.key like 'High/%' and split_part(e.key, '/', 2) not in ('Closed', 'WontFix', 'Duplicate', 'RetestFixed')), 0) as high
       from ${s}.campaign_issue_stats st
     ) v
     where v.campaign_id = c.id`,
  );
  log(`campaign schema: the readiness projection of every issue, its statistics and every campaign's verdict`);
}
