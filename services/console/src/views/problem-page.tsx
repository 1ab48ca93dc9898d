/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// (Also in tsconfig.json; said here for tsx, which reads only the tsconfig of the directory it runs from.)
import type { VNode } from 'preact';
import { Layout, type ShellSession } from './layout.tsx';

export interface ProblemPageProps {
  status: number;
  detail: string;
  session?: ShellSession | undefined;
  /** Seconds before trying again is worth it (429, 503). */
  retryAfter?: number | undefined;
}

const TITLES: Record<number, string> = {
  400: 'That request could not be understood',
  403: 'You do not have access to this',
  404: 'Page not found',
  409: 'That could not be done',
  422: 'Some values were not accepted',
  429: 'Too many attempts',
  500: 'Something went wrong',
  503: 'The console is unavailable just now',
};

export const problemTitle = (status: number): string => TITLES[status] ?? (status >= 500 ? TITLES[503]! : TITLES[400]!);

/** The console's error page: what went wrong in words, and where to go from here. */
export function ProblemPage({ status, detail, session, retryAfter }: ProblemPageProps): VNode {
  const title = problemTitle(status);
  return (
    <Layout title={title} session={session}>
      <section class="problem" aria-labelledby="problem-title">
        <h1 id="problem-title">{title}</h1>
        <p>{detail}</p>
        {retryAfter !== undefined && <p>Try again in {retryAfter >= 60 ? `${Math.ceil(retryAfter / 60)} minutes` : `${retryAfter} seconds`}.</p>}
        <p>
          <a href={session ? '/console/campaigns' : '/console/sign-in'}>{session ? 'Back to campaigns' : 'Go to sign-in'}</a>
        </p>
      </section>
    </Layout>
  );
}
