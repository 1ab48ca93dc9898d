import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nkeys } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@preflight/config';
import { eventually, freePort } from '@preflight/testing';
import { connectNats, eventsConfigShape, natsAuthOptions, NatsAuthConfigError } from '../src/index.ts';
import { logger } from './harness.ts';

/**
 * NATS_CREDS_FILE and NATS_TLS_*: against a nats-server of this file's own that requires TLS
 * with a client certificate (signed by a throwaway CA) and an nkey user, as a production
 * cluster does with the files mounted into the pod (docs/operations.md, "NATS credentials and TLS").
 */
const dir = mkdtempSync(join(tmpdir(), 'nats-auth-'));
const file = (name: string) => join(dir, name);
const user = nkeys.createUser();
let server: ChildProcess | undefined;
let url = '';

function credsFile(seed: Uint8Array, name: string): string {
  // nsc's layout; the server in nkey mode checks the seed's signature of its nonce, not the JWT.
  const text = [
    '-----BEGIN NATS USER JWT-----',
    'eyJ0eXAiOiJKV1QiLCJhbGciOiJlZDI1NTE5LW5rZXkifQ.e30.c2ln',
    '------END NATS USER JWT------',
    '',
    '-----BEGIN USER NKEY SEED-----',
    new TextDecoder().decode(seed),
    '------END USER NKEY SEED------',
    '',
  ].join('\n');
  writeFileSync(file(name), text);
  return file(name);
}

function openssl(...args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
}

/** A CA, a server certificate for 127.0.0.1 and a client certificate, all signed by the CA. */
function certificates(): void {
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=test-ca', '-keyout', 'ca-key.pem', '-out', 'ca.pem');
  for (const [name, ext] of [
    ['server', 'subjectAltName=IP:127.0.0.1,DNS:localhost'],
    ['client', 'extendedKeyUsage=clientAuth'],
  ] as const) {
    openssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${name}`, '-keyout', `${name}-key.pem`, '-out', `${name}.csr`);
    writeFileSync(file(`${name}.ext`), `${ext}\n`);
    openssl('x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca-key.pem', '-CAcreateserial', '-days', '1', '-extfile', `${name}.ext`, '-out', `${name}.pem`);
  }
}

const tlsFiles = () => ({ NATS_TLS_CA_FILE: file('ca.pem'), NATS_TLS_CERT_FILE: file('client.pem'), NATS_TLS_KEY_FILE: file('client-key.pem') });

beforeAll(async () => {
  certificates();
  const port = await freePort();
  writeFileSync(
    file('server.conf'),
    [
      `listen: "127.0.0.1:${port}"`,
      `tls { cert_file: "${file('server.pem')}", key_file: "${file('server-key.pem')}", ca_file: "${file('ca.pem')}", verify: true }`,
      `authorization { users: [ { nkey: "${user.getPublicKey()}" } ] }`,
    ].join('\n'),
  );
  server = spawn('nats-server', ['-c', file('server.conf')], { stdio: 'ignore' });
  url = `tls://127.0.0.1:${port}`;
  const auth = { NATS_CREDS_FILE: credsFile(user.getSeed(), 'user.creds'), ...tlsFiles() };
  await eventually(async () => (await connect({ servers: url, ...natsAuthOptions(auth), maxReconnectAttempts: 0 })).close(), { timeoutMs: 15_000 });
}, 60_000);

afterAll(() => {
  server?.kill();
  rmSync(dir, { recursive: true, force: true });
});

describe('NATS credentials and TLS from the configuration', () => {
  it('are read by every service on the stream (eventsConfigShape), none by default', () => {
    const config = loadConfig(eventsConfigShape, { source: { NATS_CREDS_FILE: '/etc/nats/user.creds', NATS_TLS_CA_FILE: '/etc/nats-tls/ca.crt' } });
    expect(config).toMatchObject({ NATS_CREDS_FILE: '/etc/nats/user.creds', NATS_TLS_CA_FILE: '/etc/nats-tls/ca.crt' });
    expect(natsAuthOptions(loadConfig(eventsConfigShape, { source: {} }))).toEqual({});
  });

  it('build the connect options: a creds authenticator signing with the seed, and the TLS files', () => {
    const options = natsAuthOptions({ NATS_CREDS_FILE: credsFile(user.getSeed(), 'options.creds'), ...tlsFiles() });
    expect(options.tls).toEqual({ caFile: file('ca.pem'), certFile: file('client.pem'), keyFile: file('client-key.pem') });
    const answer = (options.authenticator as (nonce?: string) => { nkey: string; sig: string; jwt: string })('a-nonce');
    expect(answer.nkey).toBe(user.getPublicKey());
    expect(answer.jwt).toMatch(/^eyJ/);
    expect(user.verify(new TextEncoder().encode('a-nonce'), nkeys.decode(answer.sig))).toBe(true);
  });

  it('connect to a server that requires a client certificate and an nkey user', async () => {
    const nc = await connectNats({ url, name: 'nats-auth-test', logger, auth: { NATS_CREDS_FILE: credsFile(user.getSeed(), 'connect.creds'), ...tlsFiles() } });
    try {
      expect(nc.info?.tls_required).toBe(true);
      await nc.flush();
    } finally {
      await nc.close();
    }
  });

  it('are what the server checks: another user\'s seed or no client certificate is refused', async () => {
    const stranger = credsFile(nkeys.createUser().getSeed(), 'stranger.creds');
    await expect(connect({ servers: url, ...natsAuthOptions({ NATS_CREDS_FILE: stranger, ...tlsFiles() }), maxReconnectAttempts: 0 })).rejects.toThrow(/authorization/i);
    const own = credsFile(user.getSeed(), 'own.creds');
    const err = await connect({ servers: url, ...natsAuthOptions({ NATS_CREDS_FILE: own, NATS_TLS_CA_FILE: file('ca.pem') }), maxReconnectAttempts: 0, timeout: 3_000 }).then(
      (nc) => nc.close().then(() => undefined),
      (e: unknown) => e as Error,
    );
    // The server drops the handshake; the client sees no answer, so no connection (bounded by `timeout`).
    expect(String(err)).toMatch(/timeout|certificate|closed/i);
  });

  it('a missing or wrong file stops the start with the variable\'s name, before any connection', async () => {
    const start = (auth: Record<string, string>) => connectNats({ url, name: 'nats-auth-test', logger, auth });
    await expect(start({ NATS_CREDS_FILE: file('nope.creds') })).rejects.toThrow(new NatsAuthConfigError(`NATS_CREDS_FILE: cannot read ${file('nope.creds')} (ENOENT)`));
    await expect(start({ NATS_CREDS_FILE: file('ca.pem') })).rejects.toThrow(/NATS_CREDS_FILE: .* is not a NATS credentials file/);
    await expect(start({ NATS_TLS_CA_FILE: file('missing-ca.pem') })).rejects.toThrow(/NATS_TLS_CA_FILE: cannot read/);
    await expect(start({ NATS_TLS_CERT_FILE: file('client.pem') })).rejects.toThrow('NATS_TLS_CERT_FILE and NATS_TLS_KEY_FILE go together');
  });
});
