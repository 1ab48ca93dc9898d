import { randomBytes } from 'node:crypto';
import { startFakeServer, type FakeReply, type FakeServer, type RecordedRequest } from './fake-server.ts';
import { awaitableRecords } from './awaitable-records.ts';

/**
 * A Teams Workflows webhook ("Post to a channel when a webhook request is received"): POST to
 * the flow's manual trigger URL, signed by its `sig` query parameter, with
 * `{type: "message", attachments: [{contentType: "application/vnd.microsoft.card.adaptive", content}]}`;
 * 202 Accepted when taken. Errors come as `{error: {code, message}}` (401 bad signature, 404 flow
 * gone, 400 a message the flow's schema or Teams refuses, 413 over Teams' 28 KB message limit).
 * Cards are checked against the Adaptive Card rules (adaptivecards.io/explorer) for the elements
 * it knows; version at most 1.5, what Teams renders.
 */

export interface TeamsFakeCard {
  /** The trigger path (without the query) it was posted to. */
  path: string;
  /** The name the webhook was issued with. */
  flow: string;
  card: Record<string, unknown>;
  message: Record<string, unknown>;
}

export interface FakeTeams extends FakeServer {
  cards: TeamsFakeCard[];
  /** A fresh Workflows trigger URL. */
  webhookUrl(flow?: string): string;
  /** The flow was deleted: 404 from now on. */
  revoke(url: string): void;
  waitForCard(match: (card: TeamsFakeCard) => boolean, timeoutMs?: number): Promise<TeamsFakeCard>;
}

const MESSAGE_MAX_BYTES = 28 * 1024;
const TRIGGER_PATH = /^\/powerautomate\/automations\/direct\/workflows\/([0-9a-f]{32})\/triggers\/manual\/paths\/invoke$/;
const ADAPTIVE_CARD = 'application/vnd.microsoft.card.adaptive';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const refuse = (status: number, code: string, message: string): FakeReply => ({ status, body: { error: { code, message } } });
const isHttpUrl = (v: unknown) => typeof v === 'string' && URL.canParse(v) && /^https?:$/.test(new URL(v).protocol);

/** What is wrong with a list of body elements, or null. */
function elementsProblem(elements: unknown, where: string): string | null {
  if (elements === undefined) return null;
  if (!Array.isArray(elements)) return `${where} must be an array`;
  for (const element of elements) {
    const problem = elementProblem(element);
    if (problem) return `${where}: ${problem}`;
  }
  return null;
}

function elementProblem(element: unknown): string | null {
  if (!isObject(element)) return 'element must be an object';
  const templated = Object.keys(element).find((k) => k.startsWith('$'));
  if (templated) return `unexpanded template property ${templated}`;
  switch (element.type) {
    case 'TextBlock':
      return typeof element.text === 'string' ? null : 'TextBlock needs text';
    case 'Image':
      return isHttpUrl(element.url) ? null : 'Image needs a url';
    case 'FactSet':
      if (!Array.isArray(element.facts)) return 'FactSet needs facts';
      return element.facts.every((f) => isObject(f) && typeof f.title === 'string' && typeof f.value === 'string' && !Object.keys(f).some((k) => k.startsWith('$')))
        ? null
        : 'every fact needs a title and a value';
    case 'Container':
      return elementsProblem(element.items, 'Container.items');
    case 'ColumnSet': {
      if (element.columns === undefined) return null;
      if (!Array.isArray(element.columns)) return 'ColumnSet.columns must be an array';
      for (const column of element.columns) {
        if (!isObject(column) || (column.type !== undefined && column.type !== 'Column')) return 'ColumnSet.columns holds Columns';
        const problem = elementsProblem(column.items, 'Column.items');
        if (problem) return problem;
      }
      return null;
    }
    default:
      return `unknown element type ${String(element.type)}`;
  }
}

/** What is wrong with the card by the Adaptive Card rules, or null. */
export function teamsCardProblem(card: unknown): string | null {
  if (!isObject(card) || card.type !== 'AdaptiveCard') return 'content must be an AdaptiveCard';
  const version = typeof card.version === 'string' ? /^1\.(\d)$/.exec(card.version) : null;
  if (!version || Number(version[1]) > 5) return 'version must be 1.0 to 1.5';
  const templated = Object.keys(card).find((k) => k.startsWith('$') && k !== '$schema');
  if (templated) return `unexpanded template property ${templated}`;
  const body = elementsProblem(card.body, 'body');
  if (body) return body;
  if (card.actions === undefined) return null;
  if (!Array.isArray(card.actions)) return 'actions must be an array';
  for (const action of card.actions) {
    if (!isObject(action) || action.type !== 'Action.OpenUrl') return `unknown action ${isObject(action) ? String(action.type) : ''}`;
    if (!isHttpUrl(action.url)) return 'Action.OpenUrl needs an absolute url';
    if (action.title !== undefined && typeof action.title !== 'string') return 'action title must be text';
    if (Object.keys(action).some((k) => k.startsWith('$'))) return 'unexpanded template property in an action';
  }
  return null;
}

/** The flow's answer to a post: a refusal, or the card it takes. */
function judge(body: string): { refusal: FakeReply } | { message: Json; card: Json } {
  if (Buffer.byteLength(body) > MESSAGE_MAX_BYTES) return { refusal: refuse(413, 'MessageSizeExceeded', 'The message is larger than 28 KB.') };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { refusal: refuse(400, 'InvalidRequestContent', 'The request content is not valid JSON.') };
  }
  const mismatch = (why: string) => ({ refusal: refuse(400, 'TriggerInputSchemaMismatch', why) });
  if (!isObject(parsed) || parsed.type !== 'message') return mismatch('type must be "message".');
  const attachments = parsed.attachments;
  if (!Array.isArray(attachments) || attachments.length < 1) return mismatch('attachments must hold a card.');
  const first = attachments[0] as unknown;
  if (!isObject(first) || first.contentType !== ADAPTIVE_CARD) return mismatch(`contentType must be ${ADAPTIVE_CARD}.`);
  const problem = teamsCardProblem(first.content);
  if (problem) return { refusal: refuse(400, 'InvalidAdaptiveCard', problem) };
  return { message: parsed, card: first.content as Json };
}

/** A fake Teams Workflows trigger; webhook URLs come from `webhookUrl()`. */
export async function startFakeTeams(): Promise<FakeTeams> {
  const flows = new Map<string, { name: string; sig: string; revoked: boolean }>();
  const cards = awaitableRecords<TeamsFakeCard>('Teams card');

  const route = (req: RecordedRequest): FakeReply | undefined => {
    const url = new URL(req.url, 'http://fake');
    const id = TRIGGER_PATH.exec(url.pathname)?.[1];
    if (!id) return undefined;
    const flow = flows.get(id);
    if (!flow || flow.revoked) return refuse(404, 'WorkflowNotFound', 'The workflow could not be found.');
    if (!url.searchParams.get('api-version')) return refuse(400, 'MissingApiVersionParameter', 'The api-version query parameter is required.');
    const sig = url.searchParams.get('sig');
    if (!sig) return refuse(401, 'DirectApiAuthorizationRequired', 'The request must be authenticated.');
    if (sig !== flow.sig) return refuse(401, 'DirectApiInvalidAuthorizationSignature', 'The provided signature is not valid.');
    if (req.method !== 'POST') return refuse(405, 'TriggerRequestMethodNotValid', 'The trigger takes POST.');
    const verdict = judge(req.body);
    if ('refusal' in verdict) return verdict.refusal;
    cards.add({ path: url.pathname, flow: flow.name, card: verdict.card, message: verdict.message });
    return { status: 202 };
  };

  const server = await startFakeServer(route);
  return Object.assign(server, {
    cards: cards.items,
    webhookUrl(name = 'preflight') {
      const id = randomBytes(16).toString('hex');
      const sig = randomBytes(32).toString('base64url');
      flows.set(id, { name, sig, revoked: false });
      return `${server.url}/powerautomate/automations/direct/workflows/${id}/triggers/manual/paths/invoke?api-version=1&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=${sig}`;
    },
    revoke(url: string) {
      const flow = flows.get(TRIGGER_PATH.exec(new URL(url).pathname)?.[1] ?? '');
      if (!flow) throw new Error('not a webhook URL this fake issued');
      flow.revoked = true;
    },
    waitForCard: (match: (card: TeamsFakeCard) => boolean, timeoutMs = 10_000) => cards.waitFor(match, timeoutMs),
  });
}
