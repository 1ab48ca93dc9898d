import type { Kysely, Selectable } from '@preflight/db';
import { SEVERITY_RANK, type IssueSeverity, type IssueStatus } from '@preflight/contract';
import { INITIAL_ISSUE_STATUS } from '../domain/issue-workflow.ts';
import { issueCreatedEvent } from '../domain/issue-events.ts';
import type { IssueFields } from '../domain/issue-fields.ts';
import type { CampaignEntry } from './campaign-directory.ts';
import { appendHistory } from './issue-history.ts';
import { enqueueIssueEvent, type EventTarget } from './outbox.ts';
import type { IssueDatabase, IssuesTable } from './schema.ts';
import { nextSeqNumber } from './sequences.ts';

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
    const seqNumber = await nextSeqNumber(trx, campaign.campaignId);
    const issue = await trx
      .insertInto('issues')
      .values({
        org_id: campaign.orgId,
        campaign_id: campaign.campaignId,
        seq_number: seqNumber,
        title: fields.title,
        description: fields.description,
        steps_to_reproduce: fields.stepsToReproduce,
        expected_behavior: fields.expectedBehavior,
        actual_behavior: fields.actualBehavior,
        severity: fields.severity,
        severity_rank: SEVERITY_RANK[fields.severity],
        type: fields.type,
        status: INITIAL_ISSUE_STATUS,
        page_url: fields.pageUrl,
        page_title: fields.pageTitle,
        browser_name: fields.browserName,
        browser_version: fields.browserVersion,
        operating_system: fields.operatingSystem,
        device_type: fields.deviceType,
        screen_resolution: fields.screenResolution,
        screenshot_url: fields.screenshotUrl,
        tester_email: fields.testerEmail,
        reporter,
      })
      .returning(['id', 'seq_number', 'created_at', 'revision'])
      .executeTakeFirstOrThrow();
    await appendHistory(trx, { issueId: issue.id, from: null, to: INITIAL_ISSUE_STATUS, reason: null });
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
export async function listIssues(db: Kysely<IssueDatabase>, filter: IssueListFilter): Promise<{ rows: IssueRow[]; total: number }> {
  let base = db.selectFrom('issues').where('campaign_id', '=', filter.campaignId);
  if (filter.status) base = base.where('status', '=', filter.status);
  if (filter.severity) base = base.where('severity', '=', filter.severity);
  const [rows, count] = await Promise.all([
    base
      .selectAll()
      .orderBy('severity_rank')
      .orderBy('seq_number')
      .limit(filter.pageSize)
      .offset((filter.page - 1) * filter.pageSize)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: count.total };
}
