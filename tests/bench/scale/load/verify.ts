import type { RunningSystem } from '../../../support/system.ts';
import { withBenchClient } from '../../lib/postgres.ts';
import { sleep } from '../../lib/system-bench.ts';
import { BIG_CAMPAIGN, KIND, OPEN_CAMPAIGN, idOf, type ScalePlan } from './plan.ts';

/**
 * Proof that the services take the loaded rows as their own, before anything is measured on
 * them: the API shows the loaded counts and history, and a status change of a loaded issue
 * goes through the issue service (its revision, history and list counts) and the campaign service's
 * readiness consumer (the projection row moves to the next revision and the statistics stay
 * consistent with the rows). Throws on the first mismatch.
 */
export async function verifyLoad(sys: RunningSystem, p: ScalePlan, apiKey: string, log: (msg: string) => void): Promise<void> {
  const get = async (path: string, headers: Record<string, string>) => {
    const res = await fetch(`${sys.gatewayUrl}${path}`, { headers });
    if (res.status !== 200) throw new Error(`GET ${path} → ${res.status} ${await res.text()}`);
    return res.json() as Promise<any>;
  };
  const big = idOf(KIND.campaign, BIG_CAMPAIGN);
  const page = await get(`/api/v1/campaigns/${big}/issues?page=1&pageSize=50`, { 'x-api-key': apiKey });
  if (page.total !== p.bigCampaignIssues) throw new Error(`the big campaign lists ${page.total} issues, ${p.bigCampaignIssues} loaded`);
  const issueId = idOf(KIND.issue, 0);
  const issue = await get(`/api/v1/issues/${issueId}`, { 'x-api-key': apiKey });
  if (issue.history.length < 3 || issue.history.at(-1).to !== issue.status) throw new Error(`issue ${issueId}: history ${JSON.stringify(issue.history)} does not end at ${issue.status}`);

  // A loaded issue of the all-open campaign moves on through the services (and stays open).
  const open = idOf(KIND.issue, p.bigCampaignIssues);
  const before = await get(`/api/v1/issues/${open}`, { 'x-api-key': apiKey });
  const to = before.status === 'Fixed' ? 'RetestRequested' : 'Fixed';
  const res = await fetch(`${sys.gatewayUrl}/admin/v1/issues/${open}/status`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sys.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ to, reason: 'scale bench: loaded rows accepted' }),
  });
  if (res.status !== 200) throw new Error(`changing loaded issue ${open} to ${to} → ${res.status} ${await res.text()}`);
  const revision = before.history.length + 1;
  const s = `"${sys.schemas.campaign}"`;
  await withBenchClient(async (client) => {
    for (const until = performance.now() + 30_000; ; ) {
      const { rows } = await client.query<{ revision: number; status: string }>(`select revision, status from ${s}.issue_projection where issue_id = $1`, [open]);
      const row = rows[0];
      if (row && row.revision === revision && row.status === to) break;
      if (performance.now() > until) throw new Error(`the readiness projection of ${open} is ${JSON.stringify(rows[0])}, not revision ${revision} ${to}, 30 s after the change`);
      await sleep(100);
    }
    // The statistics the consumer moved incrementally still match the projection's rows.
    const { rows } = await client.query<{ stored: number; counted: number }>(
      `select st.open_count as stored, (select count(*)::int from ${s}.issue_projection p where p.campaign_id = st.campaign_id and p.status not in ('Closed', 'WontFix', 'Duplicate', 'RetestFixed')) as counted
       from ${s}.campaign_issue_stats st where st.campaign_id = $1`,
      [idOf(KIND.campaign, OPEN_CAMPAIGN)],
    );
    if (rows[0]?.stored !== rows[0]?.counted) throw new Error(`the all-open campaign's statistics say ${rows[0]?.stored} open, its projection has ${rows[0]?.counted}`);
    // The issue service's list counts (loaded, then moved by the change) still match its issues.
    const i = `"${sys.schemas.issue}"`;
    const { rows: drift } = await client.query<{ n: number }>(
      `select count(*)::int as n from (select severity_rank, status, count(*)::int as n from ${i}.issues where campaign_id = $1 group by 1, 2) t
       full join (select * from ${i}.issue_counts where campaign_id = $1 and n <> 0) c using (severity_rank, status) where t.n is distinct from c.n`,
      [idOf(KIND.campaign, OPEN_CAMPAIGN)],
    );
    if (drift[0]!.n !== 0) throw new Error(`the all-open campaign's issue counts differ from its issues in ${drift[0]!.n} (severity, status) pairs`);
  });
  log(`verified: the API lists the loaded issues and history; a loaded issue's status change reached the readiness projection (revision ${revision})`);
}
