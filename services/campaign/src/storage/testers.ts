import { enqueueDomainEvent, type EventTarget } from '@preflight/bus';
import { sql, type Kysely } from '@preflight/db';
import { createEvent, toTimestamp } from '@preflight/events';
import { progressAfterCompletion } from '../domain/tester-progress.ts';
import { campaignsIn } from './campaigns.ts';
import type { CampaignDatabase, Task, Tester } from './schema.ts';

/*
 * Tasks, testers and task completions (README "Testers"). A tester completes when every
 * required task of its campaign is done: once, for good (a required task added later does not
 * take it back). A non-preview tester's completion enqueues TesterCompleted in the same
 * transaction; a preview tester's never does.
 */

const TASK_COLUMNS = ['id', 'title', 'required'] as const;
const TESTER_COLUMNS = ['id', 'campaign_id as campaignId', 'name', 'email', 'preview', 'status', 'verdict', 'completed_at as completedAt'] as const;

export async function createTask(
  db: Kysely<CampaignDatabase>,
  input: { campaignId: string; title: string; required: boolean; orgScope?: string | undefined },
): Promise<Task | undefined> {
  return db.transaction().execute(async (trx) => {
    const campaign = await campaignsIn(trx, input.orgScope).select('id').where('id', '=', input.campaignId).executeTakeFirst();
    if (!campaign) return undefined;
    return trx
      .insertInto('campaign_tasks')
      .values({ campaign_id: input.campaignId, title: input.title, required: input.required })
      .returning(TASK_COLUMNS)
      .executeTakeFirstOrThrow();
  });
}

export async function createTester(
  db: Kysely<CampaignDatabase>,
  input: { campaignId: string; name: string; email: string; preview: boolean; orgScope?: string | undefined },
): Promise<Tester | undefined> {
  return db.transaction().execute(async (trx) => {
    const campaign = await campaignsIn(trx, input.orgScope).select('id').where('id', '=', input.campaignId).executeTakeFirst();
    if (!campaign) return undefined;
    return trx
      .insertInto('campaign_testers')
      .values({ campaign_id: input.campaignId, name: input.name, email: input.email, preview: input.preview })
      .returning(TESTER_COLUMNS)
      .executeTakeFirstOrThrow();
  });
}

export interface CompletedTask {
  taskId: string;
  title: string;
  required: boolean;
  verdict: string | null;
  completedAt: Date;
}

export type CompleteTask =
  | { outcome: 'tester_not_found' }
  | { outcome: 'task_not_found' }
  | { outcome: 'done'; tester: Tester; tasks: CompletedTask[]; completedNow: boolean };

/**
 * Marks a task of the tester's campaign done (again: the first completion time is kept, a
 * verdict given replaces the task's and becomes the tester's latest). When that leaves no
 * required task undone and the tester had not completed yet, it completes now; unless it is a
 * preview tester, TesterCompleted is enqueued with the tester's latest verdict and the number
 * of the campaign's issues filed with the tester's e-mail (the issue projection, compared
 * case-insensitively). The tester row is locked, so two concurrent last completions cannot
 * both complete it.
 */
export async function completeTask(
  db: Kysely<CampaignDatabase>,
  input: { campaignTesterId: string; taskId: string; verdict: string | null; orgScope?: string | undefined },
  events: EventTarget,
): Promise<CompleteTask> {
  return db.transaction().execute(async (trx) => {
    // A tester is in its campaign's organisation: outside `orgScope` it is missing.
    const locked = await trx
      .selectFrom('campaign_testers')
      .select(TESTER_COLUMNS)
      .where('id', '=', input.campaignTesterId)
      .$if(input.orgScope !== undefined, (qb) => qb.where('campaign_id', 'in', campaignsIn(trx, input.orgScope).select('campaigns.id')))
      .forUpdate()
      .executeTakeFirst();
    if (!locked) return { outcome: 'tester_not_found' } as const;
    const task = await trx
      .selectFrom('campaign_tasks')
      .select('id')
      .where('id', '=', input.taskId)
      .where('campaign_id', '=', locked.campaignId)
      .executeTakeFirst();
    if (!task) return { outcome: 'task_not_found' } as const;

    await trx
      .insertInto('tester_task_completions')
      .values({ campaign_tester_id: locked.id, task_id: task.id, verdict: input.verdict })
      .onConflict((oc) =>
        oc.columns(['campaign_tester_id', 'task_id']).doUpdateSet({ verdict: sql`coalesce(excluded.verdict, tester_task_completions.verdict)` }),
      )
      .execute();

    const left = await trx
      .selectFrom('campaign_tasks')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('campaign_id', '=', locked.campaignId)
      .where('required', '=', true)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('tester_task_completions')
              .select('task_id')
              .whereRef('tester_task_completions.task_id', '=', 'campaign_tasks.id')
              .where('tester_task_completions.campaign_tester_id', '=', locked.id),
          ),
        ),
      )
      .executeTakeFirstOrThrow();
    const { completedNow, status, verdict } = progressAfterCompletion({ completed: locked.completedAt !== null, verdict: locked.verdict }, Number(left.n), input.verdict);

    const tester = await trx
      .updateTable('campaign_testers')
      .set({ verdict, status, completed_at: completedNow ? sql<Date>`clock_timestamp()` : locked.completedAt })
      .where('id', '=', locked.id)
      .returning(TESTER_COLUMNS)
      .executeTakeFirstOrThrow();

    if (completedNow && !tester.preview) {
      const campaign = await trx.selectFrom('campaigns').select(['org_id', 'name']).where('id', '=', tester.campaignId).executeTakeFirstOrThrow();
      const reported = await trx
        .selectFrom('issue_projection')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('campaign_id', '=', tester.campaignId)
        .where(sql`lower(tester_email)`, '=', tester.email.toLowerCase())
        .executeTakeFirstOrThrow();
      const event = createEvent('TesterCompleted', {
        campaignId: tester.campaignId,
        orgId: campaign.org_id,
        campaignName: campaign.name,
        campaignTesterId: tester.id,
        testerName: tester.name,
        verdict: tester.verdict ?? undefined,
        issuesReported: Number(reported.n),
        occurredAt: toTimestamp(tester.completedAt ?? new Date()),
      });
      await enqueueDomainEvent(trx, events, event, campaign.org_id);
    }

    const tasks = await selectCompletions(trx).where('tester_task_completions.campaign_tester_id', '=', tester.id).execute();
    return { outcome: 'done', tester, completedNow, tasks } as const;
  });
}

/** Completions with their task, in the order they were first done; narrowed by the caller. */
function selectCompletions(db: Kysely<CampaignDatabase>) {
  return db
    .selectFrom('tester_task_completions')
    .innerJoin('campaign_tasks', 'campaign_tasks.id', 'tester_task_completions.task_id')
    .select([
      'tester_task_completions.campaign_tester_id as campaignTesterId',
      'campaign_tasks.id as taskId',
      'campaign_tasks.title',
      'campaign_tasks.required',
      'tester_task_completions.verdict',
      'tester_task_completions.completed_at as completedAt',
    ])
    .orderBy('tester_task_completions.completed_at')
    .orderBy('campaign_tasks.id');
}

/** A campaign's tasks, oldest first; undefined when the campaign is missing (or outside `orgScope`). */
export async function listTasks(db: Kysely<CampaignDatabase>, campaignId: string, orgScope?: string): Promise<Task[] | undefined> {
  const campaign = await campaignsIn(db, orgScope).select('id').where('id', '=', campaignId).executeTakeFirst();
  if (!campaign) return undefined;
  return db.selectFrom('campaign_tasks').select(TASK_COLUMNS).where('campaign_id', '=', campaignId).orderBy('created_at').orderBy('id').execute();
}

export interface TesterProgress {
  tester: Tester;
  tasks: CompletedTask[];
}

/**
 * A campaign's testers, oldest first, each with the tasks it has completed: one query for the
 * testers and one for every completion of the campaign, read in one snapshot so a tester's
 * status agrees with its completions. Undefined when the campaign is missing (or outside `orgScope`).
 */
export async function listTesters(db: Kysely<CampaignDatabase>, campaignId: string, orgScope?: string): Promise<TesterProgress[] | undefined> {
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      const campaign = await campaignsIn(trx, orgScope).select('id').where('id', '=', campaignId).executeTakeFirst();
      if (!campaign) return undefined;
      const testers = await trx.selectFrom('campaign_testers').select(TESTER_COLUMNS).where('campaign_id', '=', campaignId).orderBy('created_at').orderBy('id').execute();
      const completions = await selectCompletions(trx).where('campaign_tasks.campaign_id', '=', campaignId).execute();
      const byTester = new Map<string, CompletedTask[]>(testers.map((t) => [t.id, []]));
      for (const c of completions) byTester.get(c.campaignTesterId)?.push(c);
      return testers.map((tester) => ({ tester, tasks: byTester.get(tester.id) ?? [] }));
    });
}
