import { expect } from 'vitest';
import { eventually } from '@preflight/testing';
import type { SystemInfo } from '../support/system.ts';
import { operator } from './harness.ts';

/**
 * "A member of another organisation is refused everywhere": the console's form posts are read
 * from its own route table (every page module's registration, run against a recording router),
 * so a form added later is posted at the other organisation's resources too without this list
 * being edited.
 */

/** One of organisation A's resources of each kind a console form names. */
export interface Resources {
  campaign?: string;
  issue?: string;
  webhook?: string;
  integration?: string;
}

/** services/console/src/pages/index.ts, loaded at run time: its modules are TSX, which the tests' tsconfig does not compile. */
const PAGES = new URL('../../services/console/src/pages/index.ts', import.meta.url).href;

type Registration = (router: unknown, deps: unknown) => void;

/** The POST routes of the console's pages, relative to /console, as app.ts mounts them. */
export async function consolePostRoutes(): Promise<string[]> {
  const { pageRegistrations } = (await import(PAGES)) as { pageRegistrations: Registration[] };
  const posts: string[] = [];
  const router = {
    get: () => router,
    use: () => router,
    post: (path: string) => {
      posts.push(path);
      return router;
    },
  };
  // Registering only builds handlers: nothing is served, so the page dependencies are never asked for.
  const deps = {
    publicOrigin: '',
    context: () => {
      throw new Error('not serving');
    },
  };
  for (const register of pageRegistrations) register(router, deps);
  return posts;
}

/**
 * Every console form that names a resource, each naming one of A's, with a body that would pass
 * the form's own checks (what the console then asks the gateway to do). The ones without a path
 * parameter act in the poster's own organisation, and the organisation chooser is added by hand:
 * it lives with sign-in, outside the pages.
 */
export async function postsAt(sys: SystemInfo, orgId: string, ids: Resources): Promise<Array<[string, Record<string, string>]>> {
  const org = `/admin/v1/organizations/${orgId}`;
  const campaign = `/admin/v1/campaigns/${ids.campaign}`;
  const [signer, task, tester] = await Promise.all([
    operator<{ id: string }>(sys, 'POST', `${campaign}/signers`, { name: 'Sam Signer', email: `sam-${orgId.slice(0, 6)}@example.com` }),
    operator<{ id: string }>(sys, 'POST', `${campaign}/tasks`, { title: 'Pay', required: true }),
    operator<{ id: string }>(sys, 'POST', `${campaign}/testers`, { name: 'Tia Tester', email: `tia-${orgId.slice(0, 6)}@example.com` }),
  ]);
  const key = await operator<{ id: string }>(sys, 'POST', `${org}/api-keys`, { name: 'Not yours', scopes: ['read'] });
  const invitation = await operator<{ id: string }>(sys, 'POST', `${org}/invitations`, { email: `pending-${orgId.slice(0, 6)}@example.com`, role: 'Member' });
  const members = await operator<Array<{ userId: string; role: string }>>(sys, 'GET', `${org}/members`);
  const member = members.find((m) => m.role !== 'Owner') ?? members[0]!;
  await operator(sys, 'POST', `/admin/v1/webhooks/${ids.webhook}/test`, { eventType: 'IssueCreated' });
  const delivery = await eventually(async () => {
    const [first] = await operator<Array<{ deliveryId: string }>>(sys, 'GET', `/admin/v1/webhooks/${ids.webhook}/deliveries`);
    expect(first).toBeDefined();
    return first!.deliveryId;
  });
  const { version } = await operator<{ version: number }>(sys, 'GET', `${campaign}/report`);

  const params: Record<string, string | undefined> = { deliveryId: delivery, keyId: key.id, invitationId: invitation.id, userId: member.userId };
  /** `:id` is the resource the path's first segments name. */
  const idOf = (path: string) =>
    path.startsWith('/campaigns/') ? ids.campaign : path.startsWith('/issues/') ? ids.issue : path.startsWith('/settings/webhooks/') ? ids.webhook : path.startsWith('/settings/integrations/') ? ids.integration : undefined;
  // One body for every form: each reads only its own fields.
  const fields = {
    to: 'Closed',
    reason: 'mine now',
    assigneeName: 'Mallory',
    graceHours: '0',
    eventType: 'IssueCreated',
    since: '2026-01-01T00:00',
    signerId: signer.id,
    version: String(version),
    decision: 'approve',
    name: 'Mallory',
    email: 'mallory@example.com',
    title: 'Mallory was here',
    severity: 'Critical',
    type: 'Bug',
    required: 'on',
    testerId: tester.id,
    taskId: task.id,
    verdict: 'Done',
    role: 'Owner',
  };

  const routes = (await consolePostRoutes()).filter((path) => path.includes('/:'));
  // The derivation found the route table, not an empty list.
  expect(routes).toEqual(expect.arrayContaining(['/settings/webhooks/:id/deliveries/:deliveryId/redeliver', '/campaigns/:id/complete-task', '/settings/members/invitations/:invitationId/revoke']));
  const posts = routes.map((route): [string, Record<string, string>] => {
    const path = route.replace(/:(\w+)/g, (_m, name: string) => {
      const value = name === 'id' ? idOf(route) : params[name];
      if (!value) throw new Error(`${route}: no resource of organisation A for :${name}`);
      return value;
    });
    return [`/console${path}`, fields];
  });
  return [...posts, ['/console/orgs', { orgId }]];
}

/** What B's posts must leave as it was: everything of A's that a console form could change, read by the operator. */
export async function organisationState(sys: SystemInfo, orgId: string, ids: Resources): Promise<Record<string, unknown>> {
  const org = `/admin/v1/organizations/${orgId}`;
  const campaign = `/admin/v1/campaigns/${ids.campaign}`;
  const reads = {
    campaign,
    report: `${campaign}/report`,
    signers: `${campaign}/signers`,
    tasks: `${campaign}/tasks`,
    testers: `${campaign}/testers`,
    issues: `${campaign}/issues?pageSize=50`,
    issue: `/admin/v1/issues/${ids.issue}`,
    webhooks: `${org}/webhooks`,
    deliveries: `/admin/v1/webhooks/${ids.webhook}/deliveries`,
    integrations: `${org}/integrations`,
    keys: `${org}/api-keys`,
    members: `${org}/members`,
    invitations: `${org}/invitations`,
  };
  const entries = await Promise.all(Object.entries(reads).map(async ([name, path]) => [name, await operator(sys, 'GET', path)] as const));
  return Object.fromEntries(entries);
}

/** Reads until two reads 250 ms apart agree: deliveries of earlier events may still be landing. */
export async function settled<T>(read: () => Promise<T>, timeoutMs = 20_000): Promise<T> {
  let last: string | undefined;
  return eventually(
    async () => {
      const now = await read();
      const same = JSON.stringify(now) === last;
      last = JSON.stringify(now);
      if (!same) throw new Error(`A's state kept changing for ${timeoutMs} ms`);
      return now;
    },
    { timeoutMs, intervalMs: 250 },
  );
}
