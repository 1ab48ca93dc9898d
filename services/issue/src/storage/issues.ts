import { sql, type Kysely, type Selectable } from '@preflight/db';
import { SEVERITY_RANK, type IssueSeverity, type IssueStatus } from '@preflight/contract';
import { INITIAL_ISSUE_STATUS } from '../domain/issue-workflow.ts';
import { issueCreatedEvent } from '../domain/issue-events.ts';
import type { IssueFields } from '../domain/issue-fields.ts';
import type { CampaignEntry } from './campaign-directory.ts';
import { enqueueIssueEvent, type EventTarget } from './outbox.ts';
import type { IssueDatabase, IssuesTable } from './schema.ts';

export type IssueRow = Selectable<IssuesTable>;

/** An issue with what its detail shows from elsewhere: the campaign directory and the original. */
export type IssueDetailRow = IssueRow & {
  campaign_name: string | null;
  site_id: string;
  site_name: string | null;
  duplicate_of_seq_number: number | null;
};

/**
 * Files an issue: the next seqNumber, the row, its first history entry (null → New) and the
 * IssueCreated outbox row (revision 1) commit together. Both the public API and the dashboard
 * create through here.
 */
export async function createIssue(
  db: Kysely<IssueDatabase>,
  events: EventTarget,
  input: { campaign: CampaignEntry; fields: IssueFields; reporter: string },
): Promise<{ id: string; seqNumber: number }> {
  const { campaign, fields, reporter } = input;
  return db.transaction().execute(async (trx) => {
    // One statement, so the campaign's sequence-row lock (taken by the upsert, which is what
    // keeps seqNumber gapless under concurrency) is held across as few round trips as possible.
    const { rows } = await sql<{ id: string; seq_number: number; created_at: Date; revision: number }>`
      with seq as (
        insert into campaign_sequences (campaign_id, last_seq) values (${campaign.campaignId}, 1)
        on conflict (campaign_id) do update set last_seq = campaign_sequences.last_seq + 1
        returning last_seq
      ), issue as (
        insert into issues (
          org_id, campaign_id, seq_number, title, description, steps_to_reproduce, expected_behavior,
          actual_behavior, severity, severity_rank, type, status, page_url, page_title, browser_name,
          browser_version, operating_system, device_type, screen_resolution, screenshot_url, tester_email, reporter
        )
        select ${campaign.orgId}, ${campaign.campaignId}, seq.last_seq, ${fields.title}, ${fields.description},
          ${fields.stepsToReproduce}, ${fields.expectedBehavior}, ${fields.actualBehavior}, ${fields.severity},
          ${SEVERITY_RANK[fields.severity]}, ${fields.type}, ${INITIAL_ISSUE_STATUS}, ${fields.pageUrl}, ${fields.pageTitle},
          ${fields.browserName}, ${fields.browserVersion}, ${fields.operatingSystem}, ${fields.deviceType},
          ${fields.screenResolution}, ${fields.screenshotUrl}, ${fields.testerEmail}, ${reporter}
        from seq
        returning id, seq_number, created_at, revision
      ), history as (
        insert into issue_history (issue_id, from_status, to_status, reason)
        select id, null, ${INITIAL_ISSUE_STATUS}, null from issue
      )
      select id, seq_number, created_at, revision from issue`.execute(trx);
    const issue = rows[0]!;
    const event = issueCreatedEvent({
      id: issue.id,
      orgId: campaign.orgId,
      campaignId: campaign.campaignId,
      seqNumber: issue.seq_number,
      title: fields.title,
      severity: fields.severity,
      type: fields.type,
      status: INITIAL_ISSUE_STATUS,
      pageUrl: fields.pageUrl,
      testerEmail: fields.testerEmail,
      reporter,
      createdAt: issue.created_at,
      revision: issue.revision,
    });
    await enqueueIssueEvent(trx, events, event, campaign.orgId);
    return { id: issue.id, seqNumber: issue.seq_number };
  });
}

/** One issue, or undefined when it does not exist or lies outside `orgScope`. */
export async function findIssueDetail(
  db: Kysely<IssueDatabase>,
  issueId: string,
  orgScope: string | undefined,
): Promise<IssueDetailRow | undefined> {
  let query = db
    .selectFrom('issues as i')
    .innerJoin('campaign_directory as c', 'c.campaign_id', 'i.campaign_id')
    .leftJoin('issues as d', 'd.id', 'i.duplicate_of_id')
    .selectAll('i')
    .select(['c.name as campaign_name', 'c.site_id', 'c.site_name', 'd.seq_number as duplicate_of_seq_number'])
    .where('i.id', '=', issueId)
    // An issue is only ever filed against a complete directory entry, and entries never lose
    // their site again (campaign-directory.ts).
    .$narrowType<{ site_id: string }>();
  if (orgScope !== undefined) query = query.where('i.org_id', '=', orgScope);
  return query.executeTakeFirst();
}

/** The columns a list entry shows (domain/issue-view.ts `toIssueSummary`), not the whole row. */
export const ISSUE_SUMMARY_COLUMNS = ['id', 'seq_number', 'title', 'type', 'severity', 'status', 'assignee_name', 'page_url', 'created_at'] as const;
export type IssueSummaryRow = Pick<IssueRow, (typeof ISSUE_SUMMARY_COLUMNS)[number]>;

export interface IssueListFilter {
  campaignId: string;
  status?: IssueStatus | undefined;
  severity?: IssueSeverity | undefined;
  page: number;
  pageSize: number;
}

/**
 * One page of a campaign's issues, most severe first. seqNumber is unique per campaign, so the
 * order is total and consecutive pages neither overlap nor skip.
 */
export async function listIssues(db: Kysely<IssueDatabase>, filter: IssueListFilter): Promise<{ rows: IssueSummaryRow[]; total: number }> {
  let base = db.selectFrom('issues').where('campaign_id', '=', filter.campaignId);
  if (filter.status) base = base.where('status', '=', filter.status);
  if (filter.severity) base = base.where('severity', '=', filter.severity);
  const [rows, count] = await Promise.all([
    base
      .select(ISSUE_SUMMARY_COLUMNS)
      .orderBy('severity_rank')
      .orderBy('seq_number')
      .limit(filter.pageSize)
      .offset((filter.page - 1) * filter.pageSize)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: count.total };
}
