import { randomUUID } from 'node:crypto';
import { SEVERITY_RANK, type IssueSeverity, type IssueType } from '@preflight/contract';
import { createDatabase, migrateToLatest, type Database } from '@preflight/db';
import { encodeEvent } from '@preflight/events';
import { TEST_DATABASE_URL, dropSchemas, isolatedName } from '@preflight/testing';
import { issueCreatedEvent } from '../../../services/issue/src/domain/issue-events.ts';
import { migrations as issueMigrations } from '../../../services/issue/src/migrations/index.ts';

/**
 * The raw-SQL floor for "create an issue": the writes services/issue/src/storage makes in
 * createIssues() for one issue, in one transaction per request, as the service filed every
 * issue before it gathered a campaign's concurrent requests into shared transactions
 * (storage/issue-filing.ts); the SQL text is what kysely generated for one issue then:
 *
 *   begin
 *   one statement      with seq (sequence upsert, takes the campaign's row lock), issue (insert …
 *                      select from seq), history (null → New) select the new row
 *   enqueueEvent       with o (insert into outbox, the IssueCreated payload) select pg_notify
 *   commit
 *
 * over the same pg pool settings (libs/db createDatabase), in a scratch schema built by the
 * issue service's own migrations. What it leaves out is what the service adds around it: HTTP,
 * caller headers, validation, the campaign-directory lookup, kysely, encoding the event, and
 * the outbox relay that publishes it afterwards.
 */
// services/issue createIssues() for one issue: sequence, issue and first history row in one statement.
const CREATE_ISSUE_SQL = `with seq as (
  insert into campaign_sequences (campaign_id, last_seq) values ($1, 1)
  on conflict (campaign_id) do update set last_seq = campaign_sequences.last_seq + 1 returning last_seq
), issue as (
  insert into issues (org_id, campaign_id, seq_number, title, description, steps_to_reproduce, expected_behavior, actual_behavior, severity, severity_rank, type, status, page_url, page_title, browser_name, browser_version, operating_system, device_type, screen_resolution, screenshot_url, tester_email, reporter)
  select $2, $3, seq.last_seq, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22 from seq
  returning id, seq_number, created_at, revision
), history as (
  insert into issue_history (issue_id, from_status, to_status, reason) select id, null, 'New', null from issue
)
select id, seq_number from issue`;
// libs/bus enqueueEvent(): the outbox row and its notification in one statement.
const ENQUEUE_SQL = `with o as (insert into outbox (id, subject, type, payload, org_id) values ($1, $2, $3, $4, $5) returning id)
select pg_notify(current_schema() || '_outbox', '') from o`;

export interface RawCreateInput {
  title: string;
  description: string | null;
  severity: IssueSeverity;
  type: IssueType;
  pageUrl: string | null;
  reporter: string;
}

export interface RawSqlBaseline {
  schema: string;
  poolMax: number;
  /** Opens every pool connection now, as the services' pools are warm when they are measured. */
  warm(): Promise<void>;
  /** One create: begin, next seq, issue row, history row, commit (rollback on error). */
  createIssue(): Promise<{ id: string; seqNumber: number }>;
  close(): Promise<void>;
}

export async function startRawSqlBaseline(input: RawCreateInput, poolMax: number): Promise<RawSqlBaseline> {
  const schema = isolatedName('bench_rawsql');
  let database: Database<unknown> | undefined;
  try {
    database = createDatabase<unknown>({ url: TEST_DATABASE_URL, schema, poolMax, applicationName: 'bench-raw-sql' });
    await migrateToLatest(database.db, schema, issueMigrations);
  } catch (err) {
    await database?.close();
    await dropSchemas([schema]);
    throw err;
  }
  const opened = database;
  const { pool } = opened;
  // One campaign, as the HTTP create targets use: every create queues on its sequence row.
  const orgId = randomUUID();
  const campaignId = randomUUID();
  // The event is encoded once (its size is what matters to the database); each row gets its own id.
  const event = encodeEvent(
    issueCreatedEvent({
      id: randomUUID(),
      orgId,
      campaignId,
      seqNumber: 1,
      title: input.title,
      severity: input.severity,
      type: input.type,
      status: 'New',
      pageUrl: input.pageUrl,
      testerEmail: null,
      reporter: input.reporter,
      createdAt: new Date(),
      revision: 1,
    }),
  );
  const payload = Buffer.from(event.payload.buffer, event.payload.byteOffset, event.payload.byteLength);
  const issueValues = (seq: number) => [
    orgId,
    campaignId,
    seq,
    input.title,
    input.description,
    null,
    null,
    null,
    input.severity,
    SEVERITY_RANK[input.severity],
    input.type,
    'New',
    input.pageUrl,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    input.reporter,
  ];

  return {
    schema,
    poolMax,
    async warm() {
      const clients = await Promise.all(Array.from({ length: poolMax }, () => pool.connect()));
      for (const c of clients) c.release();
    },
    async createIssue() {
      const client = await pool.connect();
      try {
        await client.query('begin');
        const values = issueValues(0);
        values.splice(2, 1); // the sequence number comes from the statement itself
        const issue = await client.query<{ id: string; seq_number: number }>(CREATE_ISSUE_SQL, [campaignId, ...values]);
        const row = issue.rows[0]!;
        await client.query(ENQUEUE_SQL, [randomUUID(), event.subject, event.type, payload, orgId]);
        await client.query('commit');
        return { id: row.id, seqNumber: row.seq_number };
      } catch (err) {
        await client.query('rollback').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    async close() {
      await opened.close();
      await dropSchemas([schema]);
    },
  };
}
