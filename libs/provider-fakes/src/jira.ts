import { createHmac } from 'node:crypto';
import { heldCreate } from './held-create.ts';
import { awaitableRecords } from './awaitable-records.ts';
import { startFakeServer, type FakeReply, type FakeServer, type RecordedRequest } from './fake-server.ts';

/**
 * Jira Cloud REST API v3 as Preflight uses it: projects, issues (fields checked as Jira checks
 * them, the description as an ADF document), the enhanced JQL search, a workflow
 * To Do → In Progress → Done / Won't Do with transitions from every status, Basic auth, and
 * `jira:issue_updated` webhooks signed `X-Hub-Signature: sha256=<hex>` for every status change.
 */

export interface FakeJiraIssue {
  id: string;
  key: string;
  projectKey: string;
  summary: string;
  description: unknown;
  labels: string[];
  priority: string | null;
  issueType: string;
  status: string;
}

export interface FakeJiraHookDelivery {
  issueKey: string;
  status: string;
  /** The hook's HTTP answer, or null when it could not be reached. */
  answer: number | null;
}

export interface FakeJira extends FakeServer {
  email: string;
  apiToken: string;
  /** Every later call with the old token gets 401. */
  revokeToken(): void;
  createProject(key: string, name?: string): void;
  issues(): FakeJiraIssue[];
  waitForIssue(match: (issue: FakeJiraIssue) => boolean, timeoutMs?: number): Promise<FakeJiraIssue>;
  registerHook(url: string, secret: string): void;
  /** A person moves the issue in Jira: its status changes and the hook is told; resolves with the hook's answer. */
  transitionIssue(key: string, statusName: string): Promise<number | null>;
  /** Webhooks sent so far (people's moves and API transitions alike). */
  hookDeliveries: { items: FakeJiraHookDelivery[]; waitFor(match: (d: FakeJiraHookDelivery) => boolean, timeoutMs: number): Promise<FakeJiraHookDelivery> };
  /** The next create makes the issue but its answer waits until `release()` (or the fake closes). */
  holdNextCreate(): { created: Promise<FakeJiraIssue>; release(): void };
}

const STATUSES = [
  { id: '10000', name: 'To Do', category: 'new', transitionId: '11' },
  { id: '3', name: 'In Progress', category: 'indeterminate', transitionId: '21' },
  { id: '10001', name: 'Done', category: 'done', transitionId: '31' },
  { id: '10002', name: "Won't Do", category: 'done', transitionId: '41' },
] as const;
const ISSUE_TYPES = ['Task', 'Bug', 'Story', 'Epic'];
const PRIORITIES = ['Highest', 'High', 'Medium', 'Low', 'Lowest'];
const ADF_BLOCKS = new Set(['paragraph', 'heading', 'bulletList', 'orderedList', 'listItem', 'rule', 'codeBlock', 'blockquote']);
const ADF_INLINE = new Set(['text', 'hardBreak']);
const ADF_MARKS = new Set(['strong', 'em', 'code', 'link', 'strike', 'underline']);

const statusNamed = (name: string) => STATUSES.find((s) => s.name.toLowerCase() === name.toLowerCase());
const jiraError = (status: number, errors: Record<string, string>, errorMessages: string[] = []): FakeReply => ({ status, body: { errorMessages, errors } });

/** Whether `node` is an ADF node Jira accepts here (the kinds this fake knows). */
function validAdf(node: unknown, inline = false): boolean {
  if (!node || typeof node !== 'object') return false;
  const { type, content, text, marks, attrs } = node as { type?: unknown; content?: unknown; text?: unknown; marks?: unknown; attrs?: unknown };
  if (typeof type !== 'string') return false;
  if (type === 'text') {
    const marksOk = marks === undefined || (Array.isArray(marks) && marks.every((m) => ADF_MARKS.has((m as { type?: string })?.type ?? '') && ((m as { type: string }).type !== 'link' || typeof (m as { attrs?: { href?: unknown } }).attrs?.href === 'string')));
    return inline && typeof text === 'string' && text.length > 0 && marksOk;
  }
  if (type === 'hardBreak') return inline;
  if (inline || !ADF_BLOCKS.has(type)) return false;
  if (type === 'rule') return content === undefined;
  if (type === 'heading' && ![1, 2, 3, 4, 5, 6].includes((attrs as { level?: number } | undefined)?.level ?? 0)) return false;
  if (!Array.isArray(content)) return false;
  const childrenInline = type === 'paragraph' || type === 'heading' || type === 'codeBlock';
  if (type === 'bulletList' || type === 'orderedList') return content.length > 0 && content.every((c) => (c as { type?: string })?.type === 'listItem' && validAdf(c));
  return content.every((c) => (childrenInline ? ADF_INLINE.has((c as { type?: string })?.type ?? '') : true) && validAdf(c, childrenInline));
}

const validDoc = (doc: unknown) => {
  const d = doc as { type?: unknown; version?: unknown; content?: unknown } | null;
  return !!d && d.type === 'doc' && d.version === 1 && Array.isArray(d.content) && d.content.every((c) => validAdf(c));
};

function createErrors(fields: Record<string, unknown>, projects: Map<string, string>): Record<string, string> {
  const errors: Record<string, string> = {};
  const project = fields.project as { key?: unknown; id?: unknown } | undefined;
  if (typeof project?.key !== 'string' || !projects.has(project.key)) errors.project = 'Specify a valid project ID or key';
  const issueType = (fields.issuetype as { name?: unknown } | undefined)?.name;
  if (issueType === undefined) errors.issuetype = 'Specify an issue type';
  else if (typeof issueType !== 'string' || !ISSUE_TYPES.includes(issueType)) errors.issuetype = 'Specify a valid issue type';
  if (typeof fields.summary !== 'string' || !fields.summary.trim()) errors.summary = 'You must specify a summary of the issue.';
  else if (fields.summary.length > 255) errors.summary = 'Summary must be less than 255 characters.';
  if (fields.description !== undefined && !validDoc(fields.description)) errors.description = 'Operation value must be an Atlassian Document (see the Atlassian Document Format)';
  const priority = fields.priority as { name?: unknown } | undefined;
  if (priority !== undefined && (typeof priority?.name !== 'string' || !PRIORITIES.includes(priority.name))) errors.priority = 'The priority selected is invalid.';
  const labels = fields.labels;
  if (labels !== undefined) {
    if (!Array.isArray(labels) || labels.some((l) => typeof l !== 'string' || !l)) errors.labels = 'Labels must be strings.';
    else {
      const spaced = labels.find((l: string) => /\s/.test(l));
      if (spaced) errors.labels = `The label '${spaced}' contains spaces which is invalid.`;
    }
  }
  return errors;
}

export async function startFakeJira(opts: { email?: string; apiToken?: string } = {}): Promise<FakeJira> {
  const email = opts.email ?? 'bot@example.com';
  let apiToken = opts.apiToken ?? 'jira-api-token';
  const projects = new Map<string, string>();
  const issues: FakeJiraIssue[] = [];
  const created = awaitableRecords<FakeJiraIssue>('Jira issue');
  const deliveries = awaitableRecords<FakeJiraHookDelivery>('Jira webhook');
  const held = heldCreate<FakeJiraIssue>();
  let hook: { url: string; secret: string } | null = null;
  let issueSeq = 10000;
  let changeSeq = 50000;
  let server: FakeServer | null = null;

  const find = (idOrKey: string) => issues.find((i) => i.id === idOrKey || i.key === idOrKey);
  const statusJson = (name: string) => {
    const s = statusNamed(name) ?? STATUSES[0];
    return { self: `${server?.url}/rest/api/3/status/${s.id}`, id: s.id, name: s.name, statusCategory: { key: s.category } };
  };
  const issueJson = (issue: FakeJiraIssue, only?: string[]) => {
    const all: Record<string, unknown> = {
      summary: issue.summary,
      description: issue.description,
      labels: issue.labels,
      priority: issue.priority ? { name: issue.priority } : null,
      issuetype: { name: issue.issueType },
      project: { key: issue.projectKey, name: projects.get(issue.projectKey) },
      status: statusJson(issue.status),
    };
    const fields = only ? Object.fromEntries(Object.entries(all).filter(([k]) => only.includes(k))) : all;
    return { id: issue.id, key: issue.key, self: `${server?.url}/rest/api/3/issue/${issue.id}`, fields };
  };

  async function moveTo(issue: FakeJiraIssue, statusName: string): Promise<number | null> {
    const from = statusNamed(issue.status) ?? STATUSES[0];
    const to = statusNamed(statusName);
    if (!to) throw new Error(`no Jira status named ${statusName}`);
    issue.status = to.name;
    if (!hook) return null;
    const body = JSON.stringify({
      timestamp: Date.now(),
      webhookEvent: 'jira:issue_updated',
      issue_event_type_name: 'issue_generic',
      user: { accountId: '5b10ac8d82e05b22cc7d4ef5', displayName: 'Jira User' },
      issue: issueJson(issue),
      changelog: { id: String(++changeSeq), items: [{ field: 'status', fieldtype: 'jira', fieldId: 'status', from: from.id, fromString: from.name, to: to.id, toString: to.name }] },
    });
    const signature = `sha256=${createHmac('sha256', hook.secret).update(body).digest('hex')}`;
    let answer: number | null;
    try {
      const res = await fetch(hook.url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-hub-signature': signature, 'user-agent': 'Atlassian Webhook HTTP Client' }, body });
      answer = res.status;
      await res.arrayBuffer();
    } catch {
      answer = null;
    }
    deliveries.add({ issueKey: issue.key, status: to.name, answer });
    return answer;
  }

  const authorised = (req: RecordedRequest) => req.headers.authorization === `Basic ${Buffer.from(`${email}:${apiToken}`).toString('base64')}`;

  async function createIssue(body: Record<string, unknown>): Promise<FakeReply> {
    const fields = body.fields;
    if (!fields || typeof fields !== 'object') return jiraError(400, {}, ['Issue fields are required.']);
    const errors = createErrors(fields as Record<string, unknown>, projects);
    if (Object.keys(errors).length > 0) return jiraError(400, errors);
    const f = fields as { project: { key: string }; issuetype: { name: string }; summary: string; description?: unknown; labels?: string[]; priority?: { name: string } };
    const number = issues.filter((i) => i.projectKey === f.project.key).length + 1;
    const issue: FakeJiraIssue = {
      id: String(++issueSeq),
      key: `${f.project.key}-${number}`,
      projectKey: f.project.key,
      summary: f.summary,
      description: f.description ?? null,
      labels: f.labels ?? [],
      priority: f.priority?.name ?? 'Medium',
      issueType: f.issuetype.name,
      status: 'To Do',
    };
    issues.push(issue);
    created.add(issue);
    await held.hold(issue);
    return { status: 201, body: { id: issue.id, key: issue.key, self: `${server?.url}/rest/api/3/issue/${issue.id}` } };
  }

  function search(body: Record<string, unknown>): FakeReply {
    const jql = typeof body.jql === 'string' ? body.jql.trim() : '';
    const match = /^project\s*=\s*"((?:[^"\\]|\\.)*)"\s+AND\s+labels\s*=\s*"((?:[^"\\]|\\.)*)"$/i.exec(jql);
    if (!match) return jiraError(400, {}, [`Error in the JQL Query: the query '${jql}' is not supported by this fake.`]);
    const unquote = (s: string) => s.replace(/\\(.)/g, '$1');
    const [project, label] = [unquote(match[1] ?? ''), unquote(match[2] ?? '')];
    if (!projects.has(project)) return jiraError(400, {}, [`The value '${project}' does not exist for the field 'project'.`]);
    const fields = Array.isArray(body.fields) ? (body.fields as string[]) : ['id'];
    const max = typeof body.maxResults === 'number' ? body.maxResults : 50;
    const found = issues.filter((i) => i.projectKey === project && i.labels.includes(label)).slice(0, max);
    return { status: 200, body: { issues: found.map((i) => issueJson(i, fields)), isLast: true } };
  }

  async function route(req: RecordedRequest): Promise<FakeReply | undefined> {
    if (!authorised(req)) return { status: 401, body: 'Client must be authenticated to access this resource.' };
    const url = new URL(req.url, 'http://fake');
    const path = url.pathname;
    let body: Record<string, unknown> = {};
    if (req.method === 'POST' || req.method === 'PUT') {
      try {
        body = JSON.parse(req.body) as Record<string, unknown>;
      } catch {
        return jiraError(400, {}, ['Unexpected character in the request body: it must be JSON.']);
      }
    }
    const projectPath = /^\/rest\/api\/3\/project\/([^/]+)$/.exec(path);
    if (projectPath && req.method === 'GET') {
      const key = decodeURIComponent(projectPath[1] ?? '');
      if (!projects.has(key)) return jiraError(404, {}, [`No project could be found with key '${key}'.`]);
      return { status: 200, body: { id: String(10000 + [...projects.keys()].indexOf(key)), key, name: projects.get(key), self: `${server?.url}/rest/api/3/project/${key}` } };
    }
    if (path === '/rest/api/3/issue' && req.method === 'POST') return createIssue(body);
    if (path === '/rest/api/3/search/jql' && req.method === 'POST') return search(body);
    if (path === '/rest/api/3/search') return jiraError(410, {}, ['The requested API has been removed. Please migrate to the /rest/api/3/search/jql API.']);
    const issuePath = /^\/rest\/api\/3\/issue\/([^/]+)(\/transitions)?$/.exec(path);
    if (!issuePath) return undefined;
    const issue = find(decodeURIComponent(issuePath[1] ?? ''));
    if (!issue) return jiraError(404, {}, ['Issue does not exist or you do not have permission to see it.']);
    if (!issuePath[2] && req.method === 'GET') return { status: 200, body: issueJson(issue, url.searchParams.get('fields')?.split(',')) };
    if (issuePath[2] && req.method === 'GET') {
      const transitions = STATUSES.filter((s) => s.name !== issue.status).map((s) => ({ id: s.transitionId, name: s.name, to: statusJson(s.name), isAvailable: true }));
      return { status: 200, body: { transitions } };
    }
    if (issuePath[2] && req.method === 'POST') {
      const id = (body.transition as { id?: unknown } | undefined)?.id;
      const to = STATUSES.find((s) => s.transitionId === String(id) && s.name !== issue.status);
      if (!to) return jiraError(400, {}, [`Transition id '${String(id)}' is not valid for this issue.`]);
      // Jira tells the webhooks about API transitions too; the answer does not wait for them.
      void moveTo(issue, to.name);
      return { status: 204 };
    }
    return undefined;
  }

  server = await startFakeServer(route);
  const base = server;
  return {
    ...base,
    email,
    get apiToken() {
      return apiToken;
    },
    revokeToken() {
      apiToken = `${apiToken}-revoked`;
    },
    createProject(key, name = `Project ${key}`) {
      projects.set(key, name);
    },
    issues: () => [...issues],
    waitForIssue: (match, timeoutMs = 10_000) => created.waitFor(match, timeoutMs),
    registerHook(url, secret) {
      hook = { url, secret };
    },
    async transitionIssue(key, statusName) {
      const issue = find(key);
      if (!issue) throw new Error(`no Jira issue ${key}`);
      return moveTo(issue, statusName);
    },
    hookDeliveries: deliveries,
    holdNextCreate: () => held.arm(),
    async close() {
      held.releaseAll();
      await base.close();
    },
  };
}
