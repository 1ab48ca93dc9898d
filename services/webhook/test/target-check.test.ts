import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asAdmin, asKey, expectProblem, startHarness, type Harness } from './harness.ts';

/**
 * The public-address rule on webhook URLs, through the API. Names resolve through a table
 * (the sandbox has no DNS of its own), except where the real system resolver is the point.
 */
const NAMES: Record<string, string[]> = {
  'hooks.example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
  'internal.example.com': ['10.20.30.40'],
  'mixed.example.com': ['93.184.215.14', '192.168.0.10'],
  'v6-loopback.example.com': ['::1'],
  'mapped.example.com': ['::ffff:127.0.0.1'],
  'metadata.example.com': ['169.254.169.254'],
};
const lookups: string[] = [];
const tableResolver = async (host: string) => {
  lookups.push(host);
  const found = NAMES[host];
  if (found) return found;
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
};

let strict: Harness;
let systemDns: Harness;
let permissive: Harness;
let flaky: Harness;
const key = asKey(randomUUID());

beforeAll(async () => {
  strict = await startHarness({ resolveHost: tableResolver });
  [systemDns, permissive, flaky] = await Promise.all([
    startHarness({ schema: strict.schema }),
    startHarness({ schema: strict.schema, allowPrivateTargets: true, resolveHost: tableResolver }),
    startHarness({
      schema: strict.schema,
      resolveHost: async () => {
        throw Object.assign(new Error('getaddrinfo EAI_AGAIN'), { code: 'EAI_AGAIN' });
      },
    }),
  ]);
});
afterAll(async () => {
  await Promise.all([systemDns?.close(), permissive?.close(), flaky?.close()]);
  await strict?.close();
});

const create = (h: Harness, url: string) => h.call('POST', '/api/v1/webhooks', { as: key, body: { url } });

describe('IP literals', () => {
  it.each([
    ['http://127.0.0.1:8080/hook', 'loopback'],
    ['http://2130706433/hook', 'loopback'],
    ['http://0x7f.1/hook', 'loopback'],
    ['http://10.0.0.8/hook', 'private'],
    ['http://172.20.1.1/hook', 'private'],
    ['https://192.168.1.20/hook', 'private'],
    ['http://169.254.10.10/hook', 'link-local'],
    ['http://169.254.169.254/latest/meta-data/', 'metadata'],
    ['http://100.64.1.1/hook', 'carrier-grade NAT'],
    ['http://224.0.0.251/hook', 'multicast'],
    ['http://0.0.0.0/hook', 'unspecified'],
    ['http://255.255.255.255/hook', 'broadcast'],
    ['http://[::1]/hook', 'loopback'],
    ['http://[::]/hook', 'unspecified'],
    ['http://[fe80::1]/hook', 'link-local'],
    ['http://[fc00::1]/hook', 'unique-local'],
    ['http://[fd00:ec2::254]/latest/meta-data/', 'metadata'],
    ['http://[ff02::1]/hook', 'multicast'],
    ['http://[::ffff:127.0.0.1]/hook', 'IPv4-mapped form of a loopback'],
    ['http://[::ffff:10.1.1.1]/hook', 'IPv4-mapped form of a private'],
    ['http://[::ffff:169.254.169.254]/hook', 'IPv4-mapped form of the AWS/GCP/Azure/OpenStack cloud metadata'],
  ])('refuses %s (%s) with 422 on url', async (url, reason) => {
    const problem = expectProblem(await create(strict, url), 422);
    expect(Object.keys(problem.errors)).toEqual(['url']);
    expect(problem.errors.url[0]).toMatch(/^Must be reachable over the public internet: /);
    expect(problem.errors.url[0]).toContain(reason);
  });

  it('accepts public IPv4 and IPv6 literals without asking DNS', async () => {
    lookups.length = 0;
    expect((await create(strict, 'https://93.184.215.14:8443/hook')).status).toBe(201);
    expect((await create(strict, 'https://[2606:4700:4700::1111]/hook')).status).toBe(201);
    expect(lookups).toEqual([]);
  });
});

describe('host names', () => {
  it('accepts a name whose every address is public', async () => {
    const res = await create(strict, 'https://Hooks.Example.com/preflight');
    expect(res.status).toBe(201);
    expect(res.body.url).toBe('https://Hooks.Example.com/preflight');
    expect(lookups).toContain('hooks.example.com');
  });

  it.each([
    ['https://internal.example.com/hook', "'internal.example.com' resolves to 10.20.30.40, a private network address"],
    ['https://mixed.example.com/hook', "'mixed.example.com' resolves to 192.168.0.10"],
    ['https://v6-loopback.example.com/hook', 'resolves to ::1, a loopback address'],
    ['https://mapped.example.com/hook', 'an IPv4-mapped form of a loopback address'],
    ['https://metadata.example.com/hook', 'cloud metadata'],
    ['http://localhost:3000/hook', "'localhost' names this machine"],
    ['http://LOCALHOST./hook', "'localhost' names this machine"],
    ['http://api.localhost/hook', "'api.localhost' names this machine"],
  ])('refuses %s', async (url, reason) => {
    const problem = expectProblem(await create(strict, url), 422);
    expect(problem.errors.url[0]).toContain(reason);
  });

  it('refuses a name that does not resolve', async () => {
    const problem = expectProblem(await create(strict, 'https://nothing-here.example.com/hook'), 422);
    expect(problem.errors.url).toEqual(["The host 'nothing-here.example.com' does not resolve to any address."]);
  });

  it('uses the system resolver by default: a reserved .invalid name does not resolve', async () => {
    const problem = expectProblem(await create(systemDns, 'https://preflight-test.invalid/hook'), 422);
    expect(problem.errors.url[0]).toContain('does not resolve');
  });

  it('answers 503 when the resolver cannot be asked, rather than blaming the URL', async () => {
    const problem = expectProblem(await create(flaky, 'https://hooks.example.com/hook'), 503);
    expect(problem.detail).toContain("'hooks.example.com' could not be resolved");
  });
});

describe('WEBHOOK_ALLOW_PRIVATE_TARGETS=true', () => {
  it.each(['http://127.0.0.1:9999/hook', 'http://localhost:9999/hook', 'http://[::1]/hook', 'http://10.0.0.8/hook', 'https://internal.example.com/hook'])(
    'accepts %s',
    async (url) => {
      expect((await create(permissive, url)).status).toBe(201);
    },
  );

  it('still refuses credentials in the URL', async () => {
    expectProblem(await create(permissive, 'http://me:pw@127.0.0.1/hook'), 422);
  });
});

describe('the settings page', () => {
  it('is held to the same rules', async () => {
    const problem = expectProblem(
      await strict.call('POST', `/admin/v1/organizations/${randomUUID()}/webhooks`, { as: asAdmin, body: { url: 'http://[::ffff:192.168.1.1]/' } }),
      422,
    );
    expect(problem.errors.url[0]).toContain('private');
  });
});
