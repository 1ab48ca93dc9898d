import { createHmac, randomUUID } from 'node:crypto';
import { buildSchema, graphql, GraphQLError } from 'graphql';
import { awaitableRecords } from './awaitable-records.ts';
import { heldCreate } from './held-create.ts';
import { startFakeServer, type FakeReply, type FakeServer, type RecordedRequest } from './fake-server.ts';

/**
 * Linear's GraphQL API as Preflight uses it, on the subset of Linear's schema it needs (so a
 * document asking for anything else is refused as Linear refuses it): teams and their workflow
 * states, issues by id, issueCreate (a client-chosen id once only) and issueUpdate. API keys go in
 * the bare Authorization header. Every state change is sent to the registered webhook, signed
 * `Linear-Signature: <hex HMAC-SHA256>` with `webhookTimestamp` in the body, as Linear does.
 */

const SCHEMA = buildSchema(`
  scalar DateTime
  type PageInfo { hasNextPage: Boolean! endCursor: String }
  type WorkflowState { id: ID! name: String! type: String! position: Float! color: String! team: Team! }
  type WorkflowStateConnection { nodes: [WorkflowState!]! pageInfo: PageInfo! }
  type Team { id: ID! name: String! key: String! states(first: Int, after: String): WorkflowStateConnection! }
  type Issue { id: ID! identifier: String! number: Float! title: String! description: String priority: Float! url: String! createdAt: DateTime! state: WorkflowState! team: Team! }
  type IssuePayload { lastSyncId: Float! success: Boolean! issue: Issue }
  input IssueCreateInput { id: String teamId: String! title: String description: String priority: Int stateId: String assigneeId: String labelIds: [String!] }
  input IssueUpdateInput { title: String description: String priority: Int stateId: String assigneeId: String }
  type Query { team(id: String!): Team! issue(id: String!): Issue! }
  type Mutation { issueCreate(input: IssueCreateInput!): IssuePayload! issueUpdate(id: String!, input: IssueUpdateInput!): IssuePayload! }
`);

const WORKFLOW = [
  ['Triage', 'triage'],
  ['Backlog', 'backlog'],
  ['Todo', 'unstarted'],
  ['In Progress', 'started'],
  ['In Review', 'started'],
  ['Done', 'completed'],
  ['Canceled', 'canceled'],
  ['Duplicate', 'canceled'],
] as const;
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

interface FakeLinearState {
  id: string;
  name: string;
  type: string;
  position: number;
  color: string;
}
interface FakeLinearTeam {
  id: string;
  name: string;
  key: string;
  states: FakeLinearState[];
}

export interface FakeLinearIssue {
  id: string;
  identifier: string;
  teamId: string;
  title: string;
  description: string | null;
  priority: number;
  url: string;
  state: FakeLinearState;
}

export interface FakeLinearHookDelivery {
  issueId: string;
  state: string;
  answer: number | null;
}

export interface FakeLinear extends FakeServer {
  /** The GraphQL endpoint (`<url>/graphql`). */
  apiUrl: string;
  apiKey: string;
  revokeKey(): void;
  /** While on, every call is refused with Linear's RATELIMITED error (HTTP 400, reset header in epoch ms). */
  setRateLimited(on: boolean, resetInMs?: number): void;
  createTeam(id: string, key: string, name?: string): void;
  issues(): FakeLinearIssue[];
  waitForIssue(match: (issue: FakeLinearIssue) => boolean, timeoutMs?: number): Promise<FakeLinearIssue>;
  registerHook(url: string, secret: string): void;
  /** A person moves the issue in Linear: its state changes and the hook is told; resolves with the hook's answer. */
  moveIssue(id: string, stateName: string): Promise<number | null>;
  hookDeliveries: { items: FakeLinearHookDelivery[]; waitFor(match: (d: FakeLinearHookDelivery) => boolean, timeoutMs: number): Promise<FakeLinearHookDelivery> };
  /** The next issueCreate makes the issue but its answer waits until `release()` (or the fake closes). */
  holdNextCreate(): { created: Promise<FakeLinearIssue>; release(): void };
}

const linearError = (message: string, code: string, userPresentableMessage: string) =>
  new GraphQLError(message, { extensions: { type: code.toLowerCase().replace(/_/g, ' '), code, userError: true, userPresentableMessage } });
const notFound = (what: string) => linearError(`Entity not found: ${what}`, 'INPUT_ERROR', `Could not find referenced ${what}.`);
const errorReply = (status: number, error: GraphQLError, headers?: Record<string, string>): FakeReply => ({ status, headers, body: { errors: [error.toJSON()], data: null } });

export async function startFakeLinear(opts: { apiKey?: string } = {}): Promise<FakeLinear> {
  let apiKey = opts.apiKey ?? 'lin_api_fake_key';
  let rateLimitedFor: number | null = null;
  const teams = new Map<string, FakeLinearTeam>();
  const issues: FakeLinearIssue[] = [];
  const created = awaitableRecords<FakeLinearIssue>('Linear issue');
  const deliveries = awaitableRecords<FakeLinearHookDelivery>('Linear webhook');
  const held = heldCreate<FakeLinearIssue>();
  let hook: { url: string; secret: string } | null = null;

  const teamOut = (team: FakeLinearTeam): Record<string, unknown> => ({
    id: team.id,
    name: team.name,
    key: team.key,
    states: () => ({ nodes: team.states.map((s) => ({ ...s, team: () => teamOut(team) })), pageInfo: { hasNextPage: false, endCursor: null } }),
  });
  const issueOut = (issue: FakeLinearIssue) => {
    const team = teams.get(issue.teamId)!;
    return { ...issue, number: Number(issue.identifier.split('-')[1]), createdAt: new Date().toISOString(), state: { ...issue.state, team: () => teamOut(team) }, team: () => teamOut(team) };
  };
  const teamOf = (id: string) => {
    const team = teams.get(id);
    if (!team) throw notFound('Team');
    return team;
  };
  const stateIn = (team: FakeLinearTeam, stateId: string) => {
    const state = team.states.find((s) => s.id === stateId);
    if (!state) throw linearError('Argument Validation Error', 'INVALID_INPUT', 'The workflow state does not belong to the team.');
    return state;
  };

  async function moveTo(issue: FakeLinearIssue, state: FakeLinearState): Promise<number | null> {
    const from = issue.state;
    issue.state = state;
    if (!hook) return null;
    const body = JSON.stringify({
      action: 'update',
      type: 'Issue',
      createdAt: new Date().toISOString(),
      organizationId: '0c3e5a1f-0000-4000-8000-00000000000f',
      webhookId: '0c3e5a1f-0000-4000-8000-0000000000aa',
      webhookTimestamp: Date.now(),
      url: issue.url,
      data: { id: issue.id, identifier: issue.identifier, title: issue.title, teamId: issue.teamId, stateId: state.id, state: { id: state.id, name: state.name, type: state.type, color: state.color }, priority: issue.priority, url: issue.url },
      updatedFrom: { stateId: from.id, updatedAt: new Date().toISOString() },
    });
    const signature = createHmac('sha256', hook.secret).update(body).digest('hex');
    let answer: number | null;
    try {
      const res = await fetch(hook.url, { method: 'POST', headers: { 'content-type': 'application/json; charset=utf-8', 'linear-signature': signature, 'linear-event': 'Issue', 'linear-delivery': randomUUID(), 'user-agent': 'Linear-Webhook' }, body });
      answer = res.status;
      await res.arrayBuffer();
    } catch {
      answer = null;
    }
    deliveries.add({ issueId: issue.id, state: state.name, answer });
    return answer;
  }

  const rootValue = {
    team: ({ id }: { id: string }) => teamOut(teamOf(id)),
    issue: ({ id }: { id: string }) => {
      const issue = issues.find((i) => i.id === id || i.identifier === id);
      if (!issue) throw notFound('Issue');
      return issueOut(issue);
    },
    issueCreate: async ({ input }: { input: { id?: string; teamId: string; title?: string; description?: string; priority?: number; stateId?: string } }) => {
      const team = teamOf(input.teamId);
      if (input.id !== undefined && !UUID_V4.test(input.id)) throw linearError('Argument Validation Error', 'INVALID_INPUT', 'id must be a UUID (version 4).');
      if (input.id && issues.some((i) => i.id === input.id)) throw linearError('Entity already exists', 'INVALID_INPUT', 'An issue with this id already exists.');
      if (input.priority !== undefined && (input.priority < 0 || input.priority > 4)) throw linearError('Argument Validation Error', 'INVALID_INPUT', 'priority must be between 0 and 4.');
      if (!input.title?.trim()) throw linearError('Argument Validation Error', 'INVALID_INPUT', 'title must not be empty.');
      const number = issues.filter((i) => i.teamId === team.id).length + 1;
      const identifier = `${team.key}-${number}`;
      const issue: FakeLinearIssue = {
        id: input.id ?? randomUUID(),
        identifier,
        teamId: team.id,
        title: input.title,
        description: input.description ?? null,
        priority: input.priority ?? 0,
        url: `https://linear.app/fake/issue/${identifier}`,
        state: input.stateId ? stateIn(team, input.stateId) : team.states.find((s) => s.type === 'triage')!,
      };
      issues.push(issue);
      created.add(issue);
      await held.hold(issue);
      return { lastSyncId: issues.length, success: true, issue: issueOut(issue) };
    },
    issueUpdate: ({ id, input }: { id: string; input: { stateId?: string; title?: string; description?: string; priority?: number } }) => {
      const issue = issues.find((i) => i.id === id || i.identifier === id);
      if (!issue) throw notFound('Issue');
      if (input.title !== undefined) issue.title = input.title;
      if (input.description !== undefined) issue.description = input.description;
      if (input.priority !== undefined) issue.priority = input.priority;
      if (input.stateId !== undefined && input.stateId !== issue.state.id) {
        // Linear tells the webhooks about API changes too; the answer does not wait for them.
        void moveTo(issue, stateIn(teams.get(issue.teamId)!, input.stateId));
      }
      return { lastSyncId: issues.length, success: true, issue: issueOut(issue) };
    },
  };

  async function route(req: RecordedRequest): Promise<FakeReply | undefined> {
    if (new URL(req.url, 'http://fake').pathname !== '/graphql' || req.method !== 'POST') return undefined;
    if (req.headers.authorization !== apiKey) {
      return errorReply(400, linearError('Authentication required, not authenticated', 'AUTHENTICATION_ERROR', 'You need to authenticate to access this operation.'));
    }
    if (rateLimitedFor !== null) {
      const reset = String(Date.now() + rateLimitedFor);
      return errorReply(400, linearError('Rate limit exceeded', 'RATELIMITED', 'You have exceeded the rate limit.'), { 'x-ratelimit-requests-remaining': '0', 'x-ratelimit-requests-reset': reset });
    }
    let request: { query?: unknown; variables?: unknown; operationName?: unknown };
    try {
      request = JSON.parse(req.body) as typeof request;
    } catch {
      return errorReply(400, linearError('Body is not JSON', 'GRAPHQL_PARSE_FAILED', 'The request body must be JSON.'));
    }
    if (typeof request.query !== 'string') return errorReply(400, linearError('Must provide query string.', 'BAD_USER_INPUT', 'Must provide query string.'));
    const result = await graphql({
      schema: SCHEMA,
      source: request.query,
      rootValue,
      variableValues: (request.variables ?? undefined) as Record<string, unknown> | undefined,
      operationName: typeof request.operationName === 'string' ? request.operationName : undefined,
    });
    // Documents that do not parse or validate against the schema get no data at all: 400, as Linear answers.
    const status = result.data === undefined ? 400 : 200;
    return { status, body: { data: result.data ?? null, ...(result.errors ? { errors: result.errors.map((e) => e.toJSON()) } : {}) } };
  }

  const base = await startFakeServer(route);
  return {
    ...base,
    apiUrl: `${base.url}/graphql`,
    get apiKey() {
      return apiKey;
    },
    revokeKey() {
      apiKey = `${apiKey}_revoked`;
    },
    setRateLimited(on, resetInMs = 30_000) {
      rateLimitedFor = on ? resetInMs : null;
    },
    createTeam(id, key, name = `Team ${key}`) {
      const states = WORKFLOW.map(([stateName, type], i) => ({ id: randomUUID(), name: stateName, type, position: i, color: '#bec2c8' }));
      teams.set(id, { id, key, name, states });
    },
    issues: () => [...issues],
    waitForIssue: (match, timeoutMs = 10_000) => created.waitFor(match, timeoutMs),
    registerHook(url, secret) {
      hook = { url, secret };
    },
    async moveIssue(id, stateName) {
      const issue = issues.find((i) => i.id === id || i.identifier === id);
      if (!issue) throw new Error(`no Linear issue ${id}`);
      const state = teams.get(issue.teamId)?.states.find((s) => s.name === stateName);
      if (!state) throw new Error(`no workflow state ${stateName}`);
      return moveTo(issue, state);
    },
    hookDeliveries: deliveries,
    holdNextCreate: () => held.arm(),
    async close() {
      held.releaseAll();
      await base.close();
    },
  };
}
