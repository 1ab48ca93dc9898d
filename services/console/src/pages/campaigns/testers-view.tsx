/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// (Also in tsconfig.json; said here for tsx, which reads only the tsconfig of the directory it runs from.)
import type { Task, Tester, TesterProgress } from '../../gateway-client/api-types.ts';
import { Choices, Field, PostForm, ProblemNotice, Submit, type FormProblem } from '../components/form.tsx';
import { Notice, Time } from '../components/ui.tsx';

/** What the last tester or task action made, shown once above the forms. */
export type TesterOutcome = { task: Task } | { tester: Tester } | { progress: TesterProgress };

function Outcome({ outcome }: { outcome?: TesterOutcome }) {
  if (!outcome) return null;
  if ('task' in outcome) {
    return (
      <Notice kind="success">
        Task “{outcome.task.title}” added ({outcome.task.required ? 'required' : 'optional'}). Task id: <code>{outcome.task.id}</code>
      </Notice>
    );
  }
  if ('tester' in outcome) {
    return (
      <Notice kind="success">
        Tester {outcome.tester.name} &lt;{outcome.tester.email}&gt; invited{outcome.tester.preview ? ' (preview)' : ''}. Tester id: <code>{outcome.tester.id}</code>
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

/**
 * Testers and their tasks. The admin API lists neither, so the page shows what an action made
 * (with the ids a completion needs) and takes ids for completing a task.
 */
export function TestersSection(props: { campaignId: string; canManage: boolean; csrf: string; problem?: FormProblem; outcome?: TesterOutcome }) {
  const { campaignId, canManage, csrf, problem, outcome } = props;
  const base = `/console/campaigns/${campaignId}`;
  return (
    <section aria-labelledby="testers-heading">
      <h2 id="testers-heading">Testers and tasks</h2>
      <Outcome outcome={outcome} />
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
          <ProblemNotice problem={problem} form="complete" />
          <PostForm action={`${base}/complete-task`} csrf={csrf} label="Complete a task">
            <Field form="complete" name="testerId" label="Tester id" required problem={problem} />
            <Field form="complete" name="taskId" label="Task id" required problem={problem} />
            <Field form="complete" name="verdict" label="Verdict" hint="The tester's verdict, optional." problem={problem} />
            <Submit>Complete task</Submit>
          </PostForm>
        </div>
      </div>
    </section>
  );
}
