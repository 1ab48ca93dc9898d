import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '@preflight/db';
import { startFakeGithub, startFakeSlack, type FakeGithub, type FakeSlack } from '@preflight/provider-fakes';
import { parseKeyRing, sealSecret, walkSealed } from '@preflight/secret-box';
import { eventually } from '@preflight/testing';
import { credentialsContext, inboundSecretContext, UNDECRYPTABLE } from '../src/domain/sealing.ts';
import { reencryptIntegrationSecrets } from '../src/secrets/reencrypt.ts';
import { sealedCredentialsPage } from '../src/storage/sealed-credentials.ts';
import { connect, connectionOf, integrationSuite, jobsOf, newKey, type IntegrationHarness } from './harness.ts';

/**
 * Issue 22, finding 8, for the integration service: credentials no configured key opens (a
 * replica or checkout with the wrong key wrote or reads them) are counted and alerted on, their
 * jobs wait, and bringing the key back resumes them without anyone saving the credentials again.
 */
const OLD_KEY = newKey('k1');
const NEW_KEY = newKey('k2');
const h: IntegrationHarness = integrationSuite({ INTEGRATION_SECRET_KEYS: OLD_KEY, INTEGRATION_SECRET_CHECK_INTERVAL_MS: '200' });
let slack: FakeSlack;
let github: FakeGithub;

beforeAll(async () => {
  [slack, github] = await Promise.all([startFakeSlack(), startFakeGithub()]);
});
afterAll(async () => {
  await Promise.all([slack?.close(), github?.close()]);
});

async function undecryptable(kind: string): Promise<number> {
  const text = await (await fetch(`${h.base}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('secrets_undecryptable{') && l.includes(`kind="${kind}"`));
  if (!line) throw new Error(`no secrets_undecryptable{kind="${kind}"} on /metrics`);
  return Number(line.slice(line.lastIndexOf(' ') + 1));
}
type Sealed = { credentials_key_id: string; credentials_iv: Buffer; credentials_ciphertext: Buffer; credentials_tag: Buffer };
const db = () => h.service.database.db;
const sealedOf = (id: string): Promise<Sealed> =>
  db().selectFrom('connections').select(['credentials_key_id', 'credentials_iv', 'credentials_ciphertext', 'credentials_tag']).where('id', '=', id).executeTakeFirstOrThrow();
const putSealed = (id: string, s: Sealed) => db().updateTable('connections').set({ ...s, updated_at: sql<Date>`now()` }).where('id', '=', id).execute();

describe('credentials no configured key opens', () => {
  it('are counted, hold their jobs, and resume once the key opens them again', async () => {
    const orgId = randomUUID();
    const webhookUrl = slack.webhookUrl('#held');
    const c = await connect(h, orgId, { kind: 'slack', name: 'Held', config: {}, credentials: { webhookUrl } });
    await connect(h, orgId, { kind: 'slack', name: 'Control', config: {}, credentials: { webhookUrl: slack.webhookUrl('#control-held') } });
    const original = await sealedOf(c.id);
    // Sealed by a checkout that generated its own key under the same id: nothing here opens it.
    const impostor = sealSecret(parseKeyRing(newKey('k1')), JSON.stringify({ webhookUrl }), credentialsContext(c.id));
    await putSealed(c.id, { credentials_key_id: impostor.keyId, credentials_iv: impostor.iv, credentials_ciphertext: impostor.ciphertext, credentials_tag: impostor.tag });
    await eventually(async () => expect(await undecryptable('credentials')).toBe(1));

    await h.fileIssue(orgId, randomUUID(), { title: 'Filed without the key' });
    await slack.waitForMessage((m) => m.channel === '#control-held' && JSON.stringify(m).includes('Filed without the key'));
    await eventually(async () => expect(await connectionOf(h, orgId, c.id)).toMatchObject({ status: 'needs-attention', lastError: UNDECRYPTABLE }));
    expect((await jobsOf(h, c.id)).map((j) => j.state)).toEqual(['pending']);

    // The key is back (here: the row as the right key sealed it): the next check resumes it.
    await putSealed(c.id, original);
    await slack.waitForMessage((m) => m.channel === '#held' && JSON.stringify(m).includes('Filed without the key'));
    expect(await connectionOf(h, orgId, c.id)).toMatchObject({ status: 'active', lastError: null });
    await eventually(async () => expect((await jobsOf(h, c.id)).map((j) => j.state)).toEqual(['done']));
    await eventually(async () => expect(await undecryptable('credentials')).toBe(0));
  });

  it('answers a tracker hook 503 with Retry-After while its inbound secret cannot be opened, so the tracker retries', async () => {
    const c = await connect(h, randomUUID(), { kind: 'github', name: 'Hooks', config: { owner: 'acme', repo: 'shop', apiBaseUrl: github.url }, credentials: { token: github.addToken() } });
    const body = JSON.stringify({ action: 'opened', issue: { number: 1, state: 'open' }, repository: { full_name: 'acme/shop' } });
    const hook = () =>
      h.call('POST', `/integrations/v1/hooks/${c.id}`, {
        as: null,
        raw: body,
        headers: { 'content-type': 'application/json', 'x-github-event': 'issues', 'x-hub-signature-256': `sha256=${createHmac('sha256', c.inbound.secret).update(body).digest('hex')}` },
      });
    const original = await db().selectFrom('connections').select(['inbound_key_id', 'inbound_iv', 'inbound_ciphertext', 'inbound_tag']).where('id', '=', c.id).executeTakeFirstOrThrow();
    const impostor = sealSecret(parseKeyRing(newKey('k1')), c.inbound.secret, inboundSecretContext(c.id));
    await db().updateTable('connections').set({ inbound_key_id: impostor.keyId, inbound_iv: impostor.iv, inbound_ciphertext: impostor.ciphertext, inbound_tag: impostor.tag }).where('id', '=', c.id).execute();
    const refused = await hook();
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(JSON.stringify(refused.body)).not.toContain(c.inbound.secret);
    await eventually(async () => expect(await undecryptable('inbound-secret')).toBeGreaterThanOrEqual(1));

    await db().updateTable('connections').set(original).where('id', '=', c.id).execute();
    expect((await hook()).status).toBe(200);
  });

  it('re-encryption moves credentials and inbound secrets to the active key, idempotently', async () => {
    const orgId = randomUUID();
    const chat = await connect(h, orgId, { kind: 'slack', name: 'Chat', config: {}, credentials: { webhookUrl: slack.webhookUrl('#re') } });
    const tracker = await connect(h, orgId, { kind: 'github', name: 'Repo', config: { owner: 'acme', repo: 'shop', apiBaseUrl: github.url }, credentials: { token: github.addToken() } });
    const ring = parseKeyRing(`${NEW_KEY},${OLD_KEY}`);
    const first = await reencryptIntegrationSecrets(db(), ring, { write: true, batchSize: 1 });
    expect(first.unopened).toEqual([]);
    expect(first.resealed).toBeGreaterThanOrEqual(3);
    const rows = await db().selectFrom('connections').select(['id', 'credentials_key_id', 'inbound_key_id']).where('org_id', '=', orgId).execute();
    expect(rows.find((r) => r.id === chat.id)).toEqual({ id: chat.id, credentials_key_id: 'k2', inbound_key_id: null });
    expect(rows.find((r) => r.id === tracker.id)).toEqual({ id: tracker.id, credentials_key_id: 'k2', inbound_key_id: 'k2' });
    expect((await reencryptIntegrationSecrets(db(), ring, { write: true })).resealed).toBe(0);
    // The new key alone opens everything now: the old one can be removed.
    const onlyNew = await walkSealed(parseKeyRing(NEW_KEY), (after, limit) => sealedCredentialsPage(db(), after, limit));
    expect(onlyNew.unopened).toEqual([]);
    expect(onlyNew.byKey).toEqual({ k2: onlyNew.parts.credentials! + (onlyNew.parts['inbound-secret'] ?? 0) });
  });
});
