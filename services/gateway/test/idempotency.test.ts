import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TEST_REDIS_URL, eventually, freePort } from '@preflight/testing';
import type { RunningGateway } from '../src/app.ts';
import { adminClient, bearer, call, cleanUp, expectProblem, isolation, metricValue, startTestGateway, startUpstreamStub, type UpstreamStub } from './harness.ts';
import { rawRequest, within } from './raw-http.ts';

// Issue 22, finding 7: a retried create duplicated. Idempotency-Key on every POST, at the
// gateway, against the real Redis (docs/api.md, "Idempotent retries").
const iso = isolation();
let issue: UpstreamStub;
let gw: RunningGateway;
/** Duplicates wait at most 300 ms; answers over 400 bytes are not kept. */
let impatient: RunningGateway;
/** Same schema, Redis a closed port. */
let noRedis: RunningGateway;
let admin: ReturnType<typeof adminClient>;
let writer: { id: string; key: string };
let otherWriter: { id: string; key: string };

const campaign = '3b8e4f0a-1c2d-4e5f-8a9b-0c1d2e3f4a5b';
const path = `/api/v1/campaigns/${campaign}/issues`;
const issueBody = { title: 'Checkout button overlaps', severity: 'High', type: 'Bug' };

beforeAll(async () => {
  issue = await startUpstreamStub();
  gw = await startTestGateway(iso, { ISSUE_URL: issue.url });
  impatient = await startTestGateway(iso, { ISSUE_URL: issue.url, IDEMPOTENCY_WAIT_MS: '300', IDEMPOTENCY_MAX_RESPONSE_BYTES: '400' });
  noRedis = await startTestGateway(iso, { ISSUE_URL: issue.url, REDIS_URL: `redis://127.0.0.1:${await freePort()}` });
  admin = adminClient(gw.url, iso.adminToken);
  const org = await admin.createOrg('Idempotent');
  writer = await admin.createKey(org.id, ['write'], 'writer');
  otherWriter = await admin.createKey(org.id, ['write'], 'other writer');
});
afterAll(async () => {
  issue?.release();
  await Promise.all([gw?.shutdown(), impatient?.shutdown(), noRedis?.shutdown()]);
  await issue?.close();
  await cleanUp(iso);
});
beforeEach(() => {
  issue.release();
  issue.status = 201;
  issue.requests.length = 0;
});

let n = 0;
const newKey = () => `retry-${Date.now()}-${++n}`;
const post = (base: string, key: string | undefined, body: unknown = issueBody, apiKey = writer.key) =>
  call(base, 'POST', path, { headers: { ...bearer(apiKey), ...(key === undefined ? {} : { 'idempotency-key': key }) }, body });

describe('the same key and request again', () => {
  it('answers the first answer (status, body, Location, Content-Type) without forwarding again, marked replayed', async () => {
    const key = newKey();
    const first = await post(gw.url, key);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const second = await post(gw.url, key);
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('location')).toBe(first.headers.get('location'));
    expect(second.headers.get('content-type')).toBe(first.headers.get('content-type'));
    // A replay is still a request of the key: it carries its own rate-limit headers.
    expect(Number(second.headers.get('x-ratelimit-remaining'))).toBeLessThan(Number(first.headers.get('x-ratelimit-remaining')));
    expect(issue.requests).toHaveLength(1);
    expect(await metricValue(gw.url, 'gateway_idempotency_total', { outcome: 'replayed' })).toBeGreaterThanOrEqual(1);
  });

  it('replays a 4xx answer too, but runs a request again after a 5xx', async () => {
    issue.status = 422;
    const refused = newKey();
    expect((await post(gw.url, refused)).status).toBe(422);
    issue.status = 201;
    const again = await post(gw.url, refused);
    expect(again.status).toBe(422);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(issue.requests).toHaveLength(1);

    issue.status = 503;
    const failed = newKey();
    expect((await post(gw.url, failed)).status).toBe(503);
    issue.status = 201;
    const retried = await post(gw.url, failed);
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(issue.requests).toHaveLength(3);
    expect((await post(gw.url, failed)).headers.get('idempotent-replayed')).toBe('true');
  });

  it('keeps keys apart per caller: another API key with the same Idempotency-Key runs its own request', async () => {
    const key = newKey();
    expect((await post(gw.url, key)).status).toBe(201);
    const other = await post(gw.url, key, issueBody, otherWriter.key);
    expect(other.status).toBe(201);
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    expect(issue.requests).toHaveLength(2);
  });

  it('changes nothing without the header: two POSTs are two requests', async () => {
    await post(gw.url, undefined);
    await post(gw.url, undefined);
    expect(issue.requests).toHaveLength(2);
  });

  it('keeps the answer sealed in Redis: neither the key nor the body appear in clear', async () => {
    const key = newKey();
    const secretTitle = `Sealed ${key}`;
    expect((await post(gw.url, key, { ...issueBody, title: secretTitle })).status).toBe(201);
    const redis = new Redis(TEST_REDIS_URL);
    try {
      const keys = await redis.keys(`${iso.redisPrefix}idem:*`);
      expect(keys.length).toBeGreaterThan(0);
      const values = await Promise.all(keys.map((k) => redis.get(k)));
      for (const text of [...keys, ...values]) {
        expect(text).not.toContain(key);
        expect(text).not.toContain(secretTitle);
      }
      const ttl = await redis.ttl(keys[0]!);
      expect(ttl).toBeGreaterThan(86_000);
      expect(ttl).toBeLessThanOrEqual(86_400);
    } finally {
      redis.disconnect();
    }
  });
});

describe('the same key with another request', () => {
  it('is a 422 naming the header, whether the body or the path differs', async () => {
    const key = newKey();
    expect((await post(gw.url, key)).status).toBe(201);
    const body = expectProblem(await post(gw.url, key, { ...issueBody, severity: 'Low' }), 422, 'Validation failed.');
    expect(Object.keys(body.errors)).toEqual(['Idempotency-Key']);
    const otherPath = await call(gw.url, 'POST', `/api/v1/campaigns/0b9f2f4e-5d7c-4c1e-9a51-3f8a2f1b6c7d/issues`, {
      headers: { ...bearer(writer.key), 'idempotency-key': key },
      body: issueBody,
    });
    expectProblem(otherPath, 422);
    expect(issue.requests).toHaveLength(1);
  });
});

describe('concurrent duplicates', () => {
  it('wait for the first request and get its answer; the service sees one', async () => {
    issue.hang = true;
    const key = newKey();
    const first = post(gw.url, key);
    await eventually(() => expect(issue.held()).toBe(1));
    const duplicates = Array.from({ length: 5 }, () => post(gw.url, key));
    issue.release();
    const answers = await Promise.all([first, ...duplicates]);
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201, 201, 201]);
    expect(new Set(answers.map((a) => a.headers.get('location')))).toEqual(new Set([answers[0]!.headers.get('location')]));
    expect(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true')).toHaveLength(5);
    expect(issue.requests).toHaveLength(1);
  });

  it('get 409 with Retry-After when the first is still in flight after the wait', async () => {
    issue.hang = true;
    const key = newKey();
    const first = post(impatient.url, key);
    await eventually(() => expect(issue.held()).toBe(1));
    const started = Date.now();
    const duplicate = await post(impatient.url, key);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expectProblem(duplicate, 409, 'Conflict.');
    expect(duplicate.body.detail).toMatch(/still in progress/);
    expect(duplicate.headers.get('retry-after')).toBe('1');
    issue.release();
    expect((await first).status).toBe(201);
    expect((await post(impatient.url, key)).headers.get('idempotent-replayed')).toBe('true');
  });

  it('a caller that hangs up does not lose the answer: its retry gets it, the service saw one request', async () => {
    issue.hang = true;
    const key = newKey();
    const raw = JSON.stringify(issueBody);
    const ex = await rawRequest(
      gw.url,
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${writer.key}\r\nIdempotency-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: ${raw.length}\r\n\r\n${raw}`,
    );
    await eventually(() => expect(issue.held()).toBe(1));
    ex.socket.destroy();
    issue.release();
    const retry = await eventually(async () => {
      const res = await post(gw.url, key);
      expect(res.headers.get('idempotent-replayed')).toBe('true');
      return res;
    });
    expect(retry.status).toBe(201);
    expect(issue.requests).toHaveLength(1);
  });
});

describe('keys that cannot be honoured', () => {
  it('refuses an empty, over-long, non-printable or repeated key with 400', async () => {
    expect((await post(gw.url, 'k'.repeat(255))).status).toBe(201);
    for (const bad of ['k'.repeat(256), 'tab\there', 'caf\u00e9']) {
      const res = await post(gw.url, bad);
      const body = expectProblem(res, 400, 'Bad request.');
      expect(Object.keys(body.errors)).toEqual(['Idempotency-Key']);
      // Checked once the caller is known: the answer counts against the key and says so.
      expect(res.headers.get('x-ratelimit-limit')).not.toBeNull();
    }
    // No caller: 401 comes first.
    expectProblem(await call(gw.url, 'POST', path, { headers: { 'idempotency-key': 'k'.repeat(256) }, body: issueBody }), 401, 'Unauthorized.');
    const raw = JSON.stringify(issueBody);
    for (const keys of [['', undefined], ['a', 'b']] as const) {
      const headers = keys.filter((k) => k !== undefined).map((k) => `Idempotency-Key: ${k}\r\n`).join('');
      const ex = await rawRequest(
        gw.url,
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${writer.key}\r\n${headers}Content-Type: application/json\r\nContent-Length: ${raw.length}\r\nConnection: close\r\n\r\n${raw}`,
      );
      expect(await within(5_000, ex.status, 'answer')).toBe(400);
    }
    expect(issue.requests).toHaveLength(1);
  });

  it('ignores the header on methods other than POST', async () => {
    const res = await call(gw.url, 'GET', '/api/v1/me', { headers: { ...bearer(writer.key), 'idempotency-key': 'k'.repeat(300) } });
    expect(res.status).toBe(200);
  });

  it('does not replay an answer too large to keep, and never runs it twice: 409', async () => {
    const key = newKey();
    const long = { ...issueBody, title: 'x'.repeat(400) }; // echoed back by the stub
    expect((await post(impatient.url, key, long)).status).toBe(201);
    const again = expectProblem(await post(impatient.url, key, long), 409);
    expect(again.detail).toMatch(/too large/);
    expect(again.firstStatus).toBe(201);
    expect(issue.requests).toHaveLength(1);
  });

  it('answers 503 with Retry-After while Redis is unreachable, and forwards requests without a key as before', async () => {
    const refused = await post(noRedis.url, newKey());
    expectProblem(refused, 503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(issue.requests).toHaveLength(0);
    expect((await post(noRedis.url, undefined)).status).toBe(201);
    expect(issue.requests).toHaveLength(1);
  });
});

describe('admin POSTs, per operator token', () => {
  it('replays an organisation created by the gateway itself, and refuses the key with another body', async () => {
    const key = newKey();
    const headers = { authorization: `Bearer ${iso.adminToken}`, 'idempotency-key': key };
    const first = await call(gw.url, 'POST', '/admin/v1/organizations', { headers, body: { name: `Once ${key}` } });
    expect(first.status).toBe(201);
    const second = await call(gw.url, 'POST', '/admin/v1/organizations', { headers, body: { name: `Once ${key}` } });
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body.id).toBe(first.body.id);
    const orgs = (await admin.call('GET', '/admin/v1/organizations')).body as Array<{ name: string }>;
    expect(orgs.filter((o) => o.name === `Once ${key}`)).toHaveLength(1);
    expectProblem(await call(gw.url, 'POST', '/admin/v1/organizations', { headers, body: { name: 'Other' } }), 422);
  });
});
