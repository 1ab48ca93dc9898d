import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';

/** An answer as kept for replay. */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** A key's record: claimed by a request in flight, or the answer that request got. */
export type IdempotencyRecord =
  | { state: 'pending'; fp: string; owner: string }
  | { state: 'done'; fp: string; status: number; headers: Record<string, string>; body: string | null };

/** One record per caller, route and key, so two callers (or two routes) never share a key. */
export interface RecordAddress {
  scope: string;
  route: string;
  key: string;
}

/** GET, or claim with a pending record when there is none, atomically. */
const CLAIM = `
local existing = redis.call('GET', KEYS[1])
if existing then return existing end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false
`;

/** Replace (ARGV[2], TTL ARGV[3] s) or, without ARGV[2], delete the record, only if it is still our claim ARGV[1]. */
const SETTLE = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] == '' then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3]) end
return 1
`;

type Script<T> = (...args: unknown[]) => Promise<T>;

/**
 * Idempotency records in Redis, under a hash of caller, route and key (the key itself is never
 * stored). Answer bodies are sealed with AES-256-GCM under a key derived from the caller's
 * Idempotency-Key, so a Redis dump does not reveal the API keys or webhook secrets some
 * creations answer with.
 */
export class IdempotencyStore {
  private readonly claimScript: Script<string | null>;
  private readonly settleScript: Script<number>;

  constructor(
    redis: Redis,
    private readonly prefix: string,
    private readonly ttlSeconds: number,
    private readonly lockTtlMs: number,
  ) {
    redis.defineCommand('preflightIdempotencyClaim', { numberOfKeys: 1, lua: CLAIM });
    redis.defineCommand('preflightIdempotencySettle', { numberOfKeys: 1, lua: SETTLE });
    const commands = redis as unknown as Record<string, Script<never>>;
    this.claimScript = commands.preflightIdempotencyClaim!.bind(redis);
    this.settleScript = commands.preflightIdempotencySettle!.bind(redis);
  }

  private redisKey(at: RecordAddress): string {
    return `${this.prefix}idem:${createHash('sha256').update(`${at.scope}\n${at.route}\n${at.key}`).digest('hex')}`;
  }

  /** Claims the key for a request with fingerprint `fp`, or returns the record already there. */
  async claim(at: RecordAddress, fp: string): Promise<{ claim: string } | { existing: IdempotencyRecord }> {
    const pending = JSON.stringify({ state: 'pending', fp, owner: randomBytes(12).toString('base64url') } satisfies IdempotencyRecord);
    const existing = await this.claimScript(this.redisKey(at), pending, this.lockTtlMs);
    return existing === null ? { claim: pending } : { existing: JSON.parse(existing) as IdempotencyRecord };
  }

  /** Keeps the answer for the TTL; `answer` undefined keeps only that it was too large. False if the claim was lost. */
  async complete(at: RecordAddress, claim: string, answer: StoredAnswer | { status: number; tooLarge: true }): Promise<boolean> {
    const { fp } = JSON.parse(claim) as { fp: string };
    const done: IdempotencyRecord =
      'tooLarge' in answer
        ? { state: 'done', fp, status: answer.status, headers: {}, body: null }
        : { state: 'done', fp, status: answer.status, headers: answer.headers, body: seal(at, answer.body) };
    return (await this.settleScript(this.redisKey(at), claim, JSON.stringify(done), this.ttlSeconds)) === 1;
  }

  /** Gives the key up (the answer is not kept), so a retry runs again. */
  async release(at: RecordAddress, claim: string): Promise<void> {
    await this.settleScript(this.redisKey(at), claim, '', 0);
  }

  /** The answer of a done record; undefined when it was too large to keep. */
  static answerOf(at: RecordAddress, record: Extract<IdempotencyRecord, { state: 'done' }>): StoredAnswer | undefined {
    if (record.body === null) return undefined;
    return { status: record.status, headers: record.headers, body: open(at, record.body) };
  }
}

const sealingKey = (at: RecordAddress) => createHash('sha256').update(`preflight idempotent answer\n${at.scope}\n${at.route}\n${at.key}`).digest();

function seal(at: RecordAddress, body: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(at), iv);
  const sealed = Buffer.concat([cipher.update(body), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64');
}

function open(at: RecordAddress, stored: string): Buffer {
  const raw = Buffer.from(stored, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', sealingKey(at), raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]);
}
