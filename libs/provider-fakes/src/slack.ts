import { randomBytes } from 'node:crypto';
import { startFakeServer, type FakeReply, type FakeServer, type RecordedRequest } from './fake-server.ts';
import { awaitableRecords } from './awaitable-records.ts';

/**
 * Slack Incoming Webhooks (docs.slack.dev/messaging/sending-messages-using-incoming-webhooks):
 * POST /services/{T…}/{B…}/{secret} with a JSON message; `ok` on success, otherwise a status and
 * an error code as plain text (400 invalid_payload/no_text/invalid_blocks, 403 invalid_token,
 * 404 no_team/no_service, 410 channel_is_archived). Blocks are checked against the Block Kit
 * limits (docs.slack.dev/reference/block-kit), unknown properties included.
 */

export interface SlackFakeMessage {
  /** The webhook path it was posted to. */
  path: string;
  /** The channel the webhook was issued for. */
  channel: string;
  body: { text?: string; blocks?: Array<Record<string, unknown>>; [key: string]: unknown };
}

export interface FakeSlack extends FakeServer {
  messages: SlackFakeMessage[];
  /** A fresh webhook URL posting to `channel`. */
  webhookUrl(channel?: string): string;
  /** The webhook was removed: it answers 404 no_service from now on. */
  revoke(url: string): void;
  /** Its channel was archived: 410 channel_is_archived from now on. */
  archive(url: string): void;
  waitForMessage(match: (message: SlackFakeMessage) => boolean, timeoutMs?: number): Promise<SlackFakeMessage>;
}

interface SlackHook {
  team: string;
  service: string;
  secret: string;
  channel: string;
  state: 'active' | 'revoked' | 'archived';
}

const HOOK_PATH = /^\/services\/(T[A-Z0-9]+)\/(B[A-Z0-9]+)\/([A-Za-z0-9]+)$/;
const id = (prefix: string) => prefix + randomBytes(6).toString('hex').toUpperCase().slice(0, 10);

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const refuse = (status: number, code: string): FakeReply => ({ status, body: code });

/** A problem with `value` (a text object), or null. */
function textObjectProblem(value: unknown, max: number, plainOnly = false): string | null {
  if (!isObject(value)) return 'text object expected';
  const extra = Object.keys(value).filter((k) => !['type', 'text', 'emoji', 'verbatim'].includes(k));
  if (extra.length) return `unknown properties ${extra.join(', ')}`;
  if (value.type !== 'plain_text' && (plainOnly || value.type !== 'mrkdwn')) return `text type ${String(value.type)} not allowed`;
  if (typeof value.text !== 'string' || value.text.length < 1) return 'text must be a non-empty string';
  if (value.text.length > max) return `text longer than ${max}`;
  if (value.emoji !== undefined && (value.type !== 'plain_text' || typeof value.emoji !== 'boolean')) return 'emoji only on plain_text';
  if (value.verbatim !== undefined && (value.type !== 'mrkdwn' || typeof value.verbatim !== 'boolean')) return 'verbatim only on mrkdwn';
  return null;
}

const maxString = (v: unknown, max: number) => v === undefined || (typeof v === 'string' && v.length >= 1 && v.length <= max);

function elementProblem(element: unknown, allowed: string[]): string | null {
  if (!isObject(element) || typeof element.type !== 'string' || !allowed.includes(element.type)) return 'unsupported element';
  if (element.type === 'image') return typeof element.image_url === 'string' && typeof element.alt_text === 'string' ? null : 'image needs image_url and alt_text';
  if (element.type !== 'button') return textObjectProblem(element, 3000);
  const extra = Object.keys(element).filter((k) => !['type', 'text', 'action_id', 'url', 'value', 'style', 'accessibility_label'].includes(k));
  if (extra.length) return `unknown button properties ${extra.join(', ')}`;
  if (!maxString(element.action_id, 255) || !maxString(element.url, 3000) || !maxString(element.value, 2000)) return 'button field too long';
  if (element.style !== undefined && element.style !== 'primary' && element.style !== 'danger') return 'button style';
  return textObjectProblem(element.text, 75, true);
}

const listProblem = (list: unknown, max: number, check: (item: unknown) => string | null): string | null => {
  if (!Array.isArray(list) || list.length < 1 || list.length > max) return `between 1 and ${max} items expected`;
  for (const item of list) {
    const problem = check(item);
    if (problem) return problem;
  }
  return null;
};

const BLOCK_KEYS: Record<string, string[]> = {
  header: ['text'],
  section: ['text', 'fields', 'accessory'],
  actions: ['elements'],
  context: ['elements'],
  divider: [],
  image: ['image_url', 'alt_text', 'title'],
};

/** What is wrong with one block by the Block Kit rules, or null. */
function blockProblem(block: unknown): string | null {
  if (!isObject(block) || typeof block.type !== 'string' || !BLOCK_KEYS[block.type]) return 'unknown block type';
  const extra = Object.keys(block).filter((k) => k !== 'type' && k !== 'block_id' && !BLOCK_KEYS[block.type as string]!.includes(k));
  if (extra.length) return `unknown ${block.type} properties ${extra.join(', ')}`;
  if (!maxString(block.block_id, 255)) return 'block_id too long';
  switch (block.type) {
    case 'header':
      return textObjectProblem(block.text, 150, true);
    case 'section': {
      if (block.text === undefined && block.fields === undefined) return 'section needs text or fields';
      const text = block.text === undefined ? null : textObjectProblem(block.text, 3000);
      const fields = block.fields === undefined ? null : listProblem(block.fields, 10, (f) => textObjectProblem(f, 2000));
      const accessory = block.accessory === undefined ? null : elementProblem(block.accessory, ['button', 'image']);
      return text ?? fields ?? accessory;
    }
    case 'actions':
      return listProblem(block.elements, 25, (e) => elementProblem(e, ['button']));
    case 'context':
      return listProblem(block.elements, 10, (e) => elementProblem(e, ['plain_text', 'mrkdwn', 'image']));
    case 'image':
      return typeof block.image_url === 'string' && typeof block.alt_text === 'string' ? null : 'image needs image_url and alt_text';
    default:
      return null;
  }
}

/** Slack's answer to a post on an issued webhook: an error code, or the message it accepts. */
function judge(body: string): { refusal: FakeReply } | { message: SlackFakeMessage['body'] } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { refusal: refuse(400, 'invalid_payload') };
  }
  if (!isObject(parsed)) return { refusal: refuse(400, 'invalid_payload') };
  if (parsed.text !== undefined && typeof parsed.text !== 'string') return { refusal: refuse(400, 'invalid_payload') };
  if (parsed.blocks !== undefined) {
    if (!Array.isArray(parsed.blocks) || parsed.blocks.length > 50) return { refusal: refuse(400, 'invalid_blocks') };
    if (parsed.blocks.some((block) => blockProblem(block) !== null)) return { refusal: refuse(400, 'invalid_blocks') };
  }
  const hasText = typeof parsed.text === 'string' && parsed.text.trim() !== '';
  if (!hasText && !(Array.isArray(parsed.blocks) && parsed.blocks.length > 0)) return { refusal: refuse(400, 'no_text') };
  return { message: parsed };
}

/** A fake Slack answering Incoming Webhook posts; webhook URLs come from `webhookUrl()`. */
export async function startFakeSlack(): Promise<FakeSlack> {
  const hooks = new Map<string, SlackHook>();
  const messages = awaitableRecords<SlackFakeMessage>('Slack message');

  const route = (req: RecordedRequest): FakeReply | undefined => {
    const path = new URL(req.url, 'http://fake').pathname;
    const parts = HOOK_PATH.exec(path);
    if (!parts) return undefined;
    const [, team, service, secret] = parts;
    const hook = hooks.get(`${team}/${service}`);
    if (![...hooks.values()].some((h) => h.team === team)) return refuse(404, 'no_team');
    if (!hook || hook.state === 'revoked') return refuse(404, 'no_service');
    if (hook.secret !== secret) return refuse(403, 'invalid_token');
    if (req.method !== 'POST') return refuse(400, 'invalid_payload');
    if (hook.state === 'archived') return refuse(410, 'channel_is_archived');
    const verdict = judge(req.body);
    if ('refusal' in verdict) return verdict.refusal;
    messages.add({ path, channel: hook.channel, body: verdict.message });
    return { status: 200, body: 'ok' };
  };

  const server = await startFakeServer(route);
  const hookOf = (url: string): SlackHook => {
    const parts = HOOK_PATH.exec(new URL(url).pathname);
    const hook = parts && hooks.get(`${parts[1]}/${parts[2]}`);
    if (!hook) throw new Error('not a webhook URL this fake issued');
    return hook;
  };
  return Object.assign(server, {
    messages: messages.items,
    webhookUrl(channel = 'preflight') {
      const hook: SlackHook = { team: id('T'), service: id('B'), secret: randomBytes(12).toString('base64url').replace(/[-_]/g, 'x'), channel, state: 'active' as const };
      hooks.set(`${hook.team}/${hook.service}`, hook);
      return `${server.url}/services/${hook.team}/${hook.service}/${hook.secret}`;
    },
    revoke: (url: string) => void (hookOf(url).state = 'revoked'),
    archive: (url: string) => void (hookOf(url).state = 'archived'),
    waitForMessage: (match: (message: SlackFakeMessage) => boolean, timeoutMs = 10_000) => messages.waitFor(match, timeoutMs),
  });
}
