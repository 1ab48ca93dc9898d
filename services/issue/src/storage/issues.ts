import { sql, type Kysely } from '@preflight/db';
import { SEVERITY_RANK } from '@preflight/contract';
import { INITIAL_ISSUE_STATUS } from '../domain/issue-workflow.ts';
import { issueCreatedEvent } from '../domain/issue-events.ts';
import type { IssueFields } from '../domain/issue-fields.ts';
import type { CampaignEntry } from './campaign-entries.ts';
import { enqueueDomainEvents, type EventTarget } from '@preflight/bus';
import type { IssueDatabase } from './schema.ts';

/** An issue as its detail shows it, with what it shows from elsewhere: the campaign directory and the original. */
export type IssueDetailRow = NonNullable<Awaited<ReturnType<typeof findIssueDetail>>>;

/** One issue to file: its fields and who reported it. */
export interface NewIssue {
  fields: IssueFields;
  reporter: string;
}

/**
 * Files issues of one campaign in one transaction: the next seqNumbers (consecutive, in the
 * given order), the rows, their first history entries (null → New) and their IssueCreated
 * outbox rows (revision 1) commit together (the list's counts follow by trigger, migrations/0004). Both the public API and the dashboard create
 * through here (storage/issue-filing.ts gathers concurrent requests of a campaign into one
 * call). Answers in the order given.
 */
export async function createIssues(
  db: Kysely<IssueDatabase>,
  events: EventTarget,
  campaign: CampaignEntry,
  issues: NewIssue[],
): Promise<Array<{ id: string; seqNumber: number }>> {
  if (issues.length === 0) return [];
  const n = issues.length;
  const column = <T>(pick: (f: IssueFields, reporter: string) => T) => issues.map((i) => pick(i.fields, i.reporter));
  return db.transaction().execute(async (trx) => {
    // One statement, so the campaign's sequence-row lock (taken by the upsert, which is what
    // keeps seqNumber gapless under concurrency) is held across as few round trips as
    // possible; the sequence moves by n at once and the rows take its last n numbers in order.
    const { rows } = await sql<{ id: string; seq_number: number; created_at: Date; revision: number }>`
      with seq as (
        insert into campaign_sequences (campaign_id, last_seq) values (${campaign.campaignId}, ${n})
        on conflict (campaign_id) do update set last_seq = campaign_sequences.last_seq + ${n}
        returning last_seq
      ), input as (
        select * from unnest(
          ${column((f) => f.title)}::text[], ${column((f) => f.description)}::text[], ${column((f) => f.stepsToReproduce)}::text[],
          ${column((f) => f.expectedBehavior)}::text[], ${column((f) => f.actualBehavior)}::text[], ${column((f) => f.severity)}::text[],
          ${column((f) => SEVERITY_RANK[f.severity])}::smallint[], ${column((f) => f.type)}::text[], ${column((f) => f.pageUrl)}::text[],
          ${column((f) => f.pageTitle)}::text[], ${column((f) => f.browserName)}::text[], ${column((f) => f.browserVersion)}::text[],
          ${column((f) => f.operatingSystem)}::text[], ${column((f) => f.deviceType)}::text[], ${column((f) => f.screenResolution)}::text[],
          ${column((f) => f.screenshotUrl)}::text[], ${column((f) => f.testerEmail)}::text[], ${column((_, reporter) => reporter)}::text[]
        ) with ordinality as t(title, description, steps_to_reproduce, expected_behavior, actual_behavior, severity, severity_rank, type,
          page_url, page_title, browser_name, browser_version, operating_system, device_type, screen_resolution, screenshot_url,
          tester_email, reporter, ord)
      ), issue as (
        insert into issues (
          org_id, campaign_id, seq_number, title, description, steps_to_reproduce, expected_behavior,
          actual_behavior, severity, severity_rank, type, status, page_url, page_title, browser_name,
          browser_version, operating_system, device_type, screen_resolution, screenshot_url, tester_email, reporter
        )
        select ${campaign.orgId}, ${campaign.campaignId}, seq.last_seq - ${n} + input.ord::integer, title, description,
          steps_to_reproduce, expected_behavior, actual_behavior, severity, severity_rank, type, ${INITIAL_ISSUE_STATUS}, page_url,
          page_title, browser_name, browser_version, operating_system, device_type, screen_resolution, screenshot_url, tester_email, reporter
        from seq, input
        order by input.ord
        returning id, seq_number, created_at, revision
      ), history as (
        insert into issue_history (issue_id, from_status, to_status, reason)
        select id, null, ${INITIAL_ISSUE_STATUS}, null from issue order by seq_number
      )
      select id, seq_number, created_at, revision from issue order by seq_number`.execute(trx);
    const created = rows.map((issue, i) => {
      const { fields, reporter } = issues[i]!;
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
      return { issue: { id: issue.id, seqNumber: issue.seq_number }, event };
    });
    await enqueueDomainEvents(trx, events, created.map((c) => c.event), campaign.orgId);
    return created.map((c) => c.issue);
  });
}

/** One issue, or undefined when it does not exist or lies outside `orgScope`. */
export async function findIssueDetail(
  db: Kysely<IssueDatabase>,
  issueId: string,
  orgScope: string | undefined,
) {
  let query = db
    .selectFrom('issues as i')
    .innerJoin('campaign_directory as c', 'c.campaign_id', 'i.campaign_id')
    .leftJoin('issues as d', 'd.id', 'i.duplicate_of_id')
    .select([
      'i.id',
      'i.org_id as orgId',
      'i.campaign_id as campaignId',
      'i.seq_number as seqNumber',
      'i.type',
      'i.severity',
      'i.status',
      'i.title',
      'i.description',
      'i.steps_to_reproduce as stepsToReproduce',
      'i.expected_behavior as expectedBehavior',
      'i.actual_behavior as actualBehavior',
      'i.page_url as pageUrl',
      'i.page_title as pageTitle',
      'i.browser_name as browserName',
      'i.browser_version as browserVersion',
      'i.operating_system as operatingSystem',
      'i.device_type as deviceType',
      'i.screen_resolution as screenResolution',
      'i.screenshot_url as screenshotUrl',
      'i.assignee_name as assigneeName',
      'i.tester_email as testerEmail',
      'i.reporter',
      'i.duplicate_of_id as duplicateOfId',
      'i.created_at as createdAt',
      'i.updated_at as updatedAt',
      'c.name as campaignName',
      'c.site_id as siteId',
      'c.site_name as siteName',
      'd.seq_number as duplicateOfSeqNumber',
    ])
    .where('i.id', '=', issueId)
    // An issue is only ever filed against a complete directory entry, and entries never lose
    // their site again (storage/campaign-entries.ts).
    .$narrowType<{ siteId: string }>();
  if (orgScope !== undefined) query = query.where('i.org_id', '=', orgScope);
  return query.executeTakeFirst();
}
