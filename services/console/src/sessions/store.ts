import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { MemberRole } from '@preflight/http';

/** What a session holds: who is signed in, to which organisation, as what, and its CSRF token. */
export interface Session {
  userId: string;
  orgId: string;
  orgName: string;
  role: MemberRole;
  email: string;
  /** The synchronizer token every non-GET request of this session must carry. */
  csrf: string;
  /** Milliseconds since the epoch: the absolute lifetime counts from here. */
  createdAt: number;
}

export type NewSession = Omit<Session, 'csrf' | 'createdAt'>;

export interface SessionStore {
  /** A new session with a new id (the cookie's value) and a new CSRF token. */
  create(session: NewSession): Promise<{ id: string; session: Session }>;
  /** The live session for a cookie value, its idle time restarted; undefined when unknown, ended or revoked. */
  get(id: string): Promise<Session | undefined>;
  destroy(id: string): Promise<void>;
  /** Ends every session of a user (role change, removal); answers how many there were. */
  revokeUser(userId: string): Promise<number>;
}

/** Session ids are bearer secrets: Redis holds only their SHA-256, so a dump signs nobody in. */
const digest = (id: string) => createHash('sha256').update(id).digest('hex');
const newSecret = () => randomBytes(32).toString('base64url');

/**
 * Sessions in Redis (docs/console.md, "Sessions"): `console:session:<sha256(id)>` holds the
 * session with the idle lifetime as its TTL (never beyond the absolute end), and a set per user
 * lists the hashes of their sessions so a role change or removal ends them all. (A session made
 * from a membership read just before a change, and stored after the sweep, is caught by the
 * membership check of every request: http/session.ts.)
 */
export function sessionStore(redis: Redis, opts: { prefix: string; idleSeconds: number; absoluteSeconds: number }): SessionStore {
  const sessionKey = (hash: string) => `${opts.prefix}console:session:${hash}`;
  const userKey = (userId: string) => `${opts.prefix}console:user-sessions:${userId}`;
  /** Seconds the session may stay idle from now: the idle lifetime, cut at the absolute end. */
  const ttlOf = (session: Session) => Math.min(opts.idleSeconds, Math.floor((session.createdAt + opts.absoluteSeconds * 1000 - Date.now()) / 1000));

  return {
    async create(fields) {
      const id = newSecret();
      const hash = digest(id);
      const session: Session = { ...fields, csrf: newSecret(), createdAt: Date.now() };
      await redis
        .multi()
        .set(sessionKey(hash), JSON.stringify(session), 'EX', opts.idleSeconds)
        .sadd(userKey(fields.userId), hash)
        // The set outlives every session in it; stale hashes in it point at expired keys.
        .expire(userKey(fields.userId), opts.absoluteSeconds)
        .exec();
      return { id, session };
    },

    async get(id) {
      const hash = digest(id);
      const raw = await redis.get(sessionKey(hash));
      if (raw === null) return undefined;
      const session = JSON.parse(raw) as Session;
      const ttl = ttlOf(session);
      if (ttl <= 0) {
        await redis.multi().del(sessionKey(hash)).srem(userKey(session.userId), hash).exec();
        return undefined;
      }
      await redis.expire(sessionKey(hash), ttl);
      return session;
    },

    async destroy(id) {
      const hash = digest(id);
      const raw = await redis.get(sessionKey(hash));
      const multi = redis.multi().del(sessionKey(hash));
      if (raw !== null) multi.srem(userKey((JSON.parse(raw) as Session).userId), hash);
      await multi.exec();
    },

    async revokeUser(userId) {
      const hashes = await redis.smembers(userKey(userId));
      if (hashes.length === 0) return 0;
      const deleted = await redis.del(...hashes.map(sessionKey));
      await redis.srem(userKey(userId), ...hashes);
      return deleted;
    },
  };
}
