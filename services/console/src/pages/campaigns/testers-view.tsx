/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// (Also in tsconfig.json; said here for tsx, which reads only the tsconfig of the directory it runs from.)
import type { Task, Tester, TesterProgress } from '../../gateway-client/api-types.ts';
import { Choices, Field, PostForm, ProblemNotice, Select, Submit, type FormProblem } from '../components/form.tsx';
import { Badge, Notice, Table, Time } from '../components/ui.tsx';

/** What the last tester or task action made, shown once above the lists. */
export type TesterOutcome = { task: Task } | { tester: Tester } | { progress: TesterProgress };

/**
 * The form key of a tester's "Complete a task" form: its fields' ids and where a refusal of
 * that completion is shown (forms.tsx names the refused form the same way).
 */
export const completeFormKey = (testerId: string) => `complete-${testerId}`;

function Outcome({ outcome }: { outcome?: TesterOutcome }) {
  if (!outcome) return null;
  if ('task' in outcome) {
    return (
      <Notice kind="success">
        Task “{outcome.task.title}” added ({outcome.task.required ? 'required' : 'optional'}).
      </Notice>
    );
  }
  if ('tester' in outcome) {
    return (
      <Notice kind="success">
        Tester {outcome.tester.name} &lt;{outcome.tester.email}&gt; invited{outcome.tester.preview ? ' (preview)' : ''}.
      </Notice>
    );
  }
  const p = outcome.progress;
  return (
    <Notice kind="success">
      <p>
        {p.name} has completed {p.completedTasks.length} task{p.completedTasks.length === 1 ? '' : 's'}
        {p.completedAt ? (
          <>
            {' '}
            and finished the campaign at <Time iso={p.completedAt} />
          </>
        ) : null}
        .
      </p>
      <ul>
        {p.completedTasks.map((t) => (
          <li>
            {t.title}
            {t.required ? ' (required)' : ''}: <Time iso={t.completedAt} />
          </li>
        ))}
      </ul>
    </Notice>
  );
}

/** "1 of 2 required", and the optional ones done besides. */
function progressText(t: TesterProgress, requiredCount: number): string {
  const required = t.completedTasks.filter((c) => c.required).length;
  const optional = t.completedTasks.length - required;
  return `${required} of ${requiredCount} required${optional ? ` (+${optional} optional)` : ''}`;
}

/** One form per tester still testing: its tasks to pick from, the ones it has done marked. */
function CompleteTaskForm({ base, tester, tasks, csrf, problem }: { base: string; tester: TesterProgress; tasks: Task[]; csrf: string; problem?: FormProblem }) {
  const key = completeFormKey(tester.id);
  const done = new Set(tester.completedTasks.map((t) => t.id));
  const choices = tasks.map((t) => ({ value: t.id, label: `${t.title}${t.required ? ' (required)' : ''}${done.has(t.id) ? ' (done)' : ''}` }));
  return (
    <div>
      <h4>{tester.name}</h4>
      <ProblemNotice problem={problem} form={key} />
      <PostForm action={`${base}/complete-task`} csrf={csrf} label={`Complete a task for ${tester.name}`}>
        <input type="hidden" name="testerId" value={tester.id} />
        <Select form={key} name="taskId" label="Task" required problem={problem} options={choices} value={tasks.find((t) => !done.has(t.id))?.id} />
        <Field form={key} name="verdict" label="Verdict" hint="The tester's verdict, optional." problem={problem} />
        <Submit>Complete task</Submit>
      </PostForm>
    </div>
  );
}

/** Testers with their progress, the campaign's tasks, and the forms that add and complete them. */
export function TestersSection(props: {
  campaignId: string;
  tasks: Task[];
  testers: TesterProgress[];
  canManage: boolean;
  csrf: string;
  problem?: FormProblem;
  outcome?: TesterOutcome;
}) {
  const { campaignId, tasks, testers, canManage, csrf, problem, outcome } = props;
  const base = `/console/campaigns/${campaignId}`;
  const requiredCount = tasks.filter((t) => t.required).length;
  const testing = testers.filter((t) => t.completedAt === null);
  // A refused completion of a tester without a form here (already complete, or a tampered id) is shown above the forms.
  const unplaced = problem?.form?.startsWith('complete') && !testing.some((t) => completeFormKey(t.id) === problem.form);
  return (
    <section aria-labelledby="testers-heading">
      <h2 id="testers-heading">Testers and tasks</h2>
      <Outcome outcome={outcome} />
      <Table caption="Testers" head={['Name', 'E-mail', 'Preview', 'Status', 'Verdict', 'Tasks done']} empty="No testers yet.">
        {testers.map((t) => (
          <tr>
            <th scope="row">{t.name}</th>
            <td>{t.email}</td>
            <td>{t.preview ? 'Preview' : 'No'}</td>
            <td>
              <Badge kind="tester" value={t.status} />
            </td>
            <td>{t.verdict ?? <span class="muted">—</span>}</td>
            <td>{progressText(t, requiredCount)}</td>
          </tr>
        ))}
      </Table>
      <Table caption="Tasks" head={['Title', 'Required']} empty="No tasks yet.">
        {tasks.map((t) => (
          <tr>
            <th scope="row">{t.title}</th>
            <td>{t.required ? 'Required' : 'Optional'}</td>
          </tr>
        ))}
      </Table>
      <div class="grid-2">
        {canManage ? (
          <div>
            <h3>Add a task</h3>
            <ProblemNotice problem={problem} form="task" />
            <PostForm action={`${base}/tasks`} csrf={csrf} label="Add a task">
              <Field form="task" name="title" label="Title" required problem={problem} />
              <Choices form="task" name="required" legend="Required" options={[{ value: 'true', label: 'Every tester must complete it' }]} checked={['true']} problem={problem} />
              <Submit>Add task</Submit>
            </PostForm>
          </div>
        ) : null}
        {canManage ? (
          <div>
            <h3>Invite a tester</h3>
            <ProblemNotice problem={problem} form="tester" />
            <PostForm action={`${base}/testers`} csrf={csrf} label="Invite a tester">
              <Field form="tester" name="name" label="Name" required problem={problem} />
              <Field form="tester" name="email" label="E-mail" type="email" required problem={problem} />
              <Choices form="tester" name="preview" legend="Preview" options={[{ value: 'true', label: 'Preview session (not counted)' }]} checked={[]} problem={problem} />
              <Submit>Invite tester</Submit>
            </PostForm>
          </div>
        ) : null}
        <div>
          <h3>Complete a task</h3>
          {unplaced ? <ProblemNotice problem={problem} form={problem?.form} /> : null}
          {testing.length === 0 ? (
            <p class="muted">{testers.length === 0 ? 'No testers yet.' : 'Every tester has finished.'}</p>
          ) : tasks.length === 0 ? (
            <p class="muted">No tasks yet.</p>
          ) : (
            testing.map((t) => <CompleteTaskForm base={base} tester={t} tasks={tasks} csrf={csrf} problem={problem} />)
          )}
        </div>
      </div>
    </section>
  );
}
