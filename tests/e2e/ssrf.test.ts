import { readFileSync } from 'node:fs';
import { lookup } from 'node:dns/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, freshTenant } from '../support/client.ts';
import { startSystem, type RunningSystem } from '../support/system.ts';
import { expectProblem } from './problems.ts';

// Issue 22, "keep the probes as suites": a table-driven SSRF battery. Creating a webhook
// (POST /api/v1/webhooks) whose URL's host is, or resolves to, an address that is not public
// must be refused with 422 naming `url`, however the address is written; public IP literals
// are accepted (no DNS is needed for them, and there is no internet here).
//
// Its own system: the shared e2e system sets WEBHOOK_ALLOW_PRIVATE_TARGETS=true so its
// receivers can listen on loopback. This one runs with the production rule.
const PUBLIC = 'Must be reachable over the public internet';
const CREDENTIALS = 'Must not contain credentials';

/** [URL, what it is, the start of the message expected under `url` (any message when omitted)] */
type Row = [url: string, what: string, message?: string];

const LOOPBACK_V4: Row[] = [
  ['http://127.0.0.1/hook', 'loopback'],
  ['http://127.1/hook', 'loopback, short form'],
  ['http://127.0.1/hook', 'loopback, three parts'],
  ['http://2130706433/hook', 'loopback, decimal'],
  ['http://0x7f000001/hook', 'loopback, hex'],
  ['http://0x7F.0x0.0x0.0x1/hook', 'loopback, hex per part'],
  ['http://017700000001/hook', 'loopback, octal'],
  ['http://0177.0.0.01/hook', 'loopback, octal per part'],
  ['http://0177.0x0.1/hook', 'loopback, mixed octal and hex'],
  ['http://127.000.000.001/hook', 'loopback, zero-padded'],
  ['http://127.255.255.254/hook', 'loopback, top of 127/8'],
  ['https://127.0.0.1:8443/hook', 'loopback, https with a port'],
  ['http://%31%32%37.0.0.1/hook', 'loopback, percent-encoded host'],
  ['http://１２７.０.０.１/hook', 'loopback, full-width digits'],
  ['http://127。0。0。1/hook', 'loopback, ideographic full stops'],
  ['http://127.0.0.1./hook', 'loopback, trailing dot'],
];
const PRIVATE_V4: Row[] = [
  ['http://10.0.0.1/hook', 'RFC 1918 10/8'],
  ['http://167772161/hook', 'RFC 1918 10/8, decimal'],
  ['http://0xa000001/hook', 'RFC 1918 10/8, hex'],
  ['http://012.0.0.1/hook', 'RFC 1918 10/8, octal first part'],
  ['http://10.255.255.255/hook', 'RFC 1918 10/8, top'],
  ['http://172.16.0.1/hook', 'RFC 1918 172.16/12'],
  ['http://172.31.255.254/hook', 'RFC 1918 172.16/12, top'],
  ['http://192.168.1.1/hook', 'RFC 1918 192.168/16'],
  ['http://3232235777/hook', 'RFC 1918 192.168/16, decimal'],
  ['http://0xc0a80101/hook', 'RFC 1918 192.168/16, hex'],
  ['http://0300.0250.01.01/hook', 'RFC 1918 192.168/16, octal'],
];
const SPECIAL_V4: Row[] = [
  ['http://0.0.0.0/hook', 'unspecified'],
  ['http://0/hook', 'unspecified, decimal'],
  ['http://0x0/hook', 'unspecified, hex'],
  ['http://0.1.2.3/hook', '"this network" 0/8'],
  ['http://169.254.1.1/hook', 'link-local 169.254/16'],
  ['http://100.64.0.1/hook', 'CGNAT 100.64/10'],
  ['http://100.127.255.254/hook', 'CGNAT 100.64/10, top'],
  ['http://1681915905/hook', 'CGNAT 100.64/10, decimal'],
  ['http://224.0.0.1/hook', 'multicast'],
  ['http://239.255.255.250/hook', 'multicast, SSDP'],
  ['http://255.255.255.255/hook', 'broadcast'],
  ['http://240.0.0.1/hook', 'reserved 240/4'],
  ['http://192.0.2.1/hook', 'documentation TEST-NET-1'],
  ['http://198.51.100.7/hook', 'documentation TEST-NET-2'],
  ['http://203.0.113.9/hook', 'documentation TEST-NET-3'],
  ['http://198.18.0.1/hook', 'benchmarking 198.18/15'],
];
const METADATA: Row[] = [
  ['http://169.254.169.254/latest/meta-data/', 'AWS/GCP/Azure metadata'],
  ['http://2852039166/latest/meta-data/', 'metadata, decimal'],
  ['http://0xa9fea9fe/latest/meta-data/', 'metadata, hex'],
  ['http://0251.0376.0251.0376/latest/meta-data/', 'metadata, octal'],
  ['http://169.254.170.2/v2/credentials', 'AWS ECS task metadata'],
  ['http://100.100.100.200/latest/meta-data/', 'Alibaba Cloud metadata'],
  ['http://[fd00:ec2::254]/latest/meta-data/', 'AWS IPv6 metadata'],
  ['http://[::ffff:169.254.169.254]/latest/meta-data/', 'metadata, IPv4-mapped'],
  ['http://metadata.google.internal/computeMetadata/v1/', 'GCP metadata name'],
  ['http://metadata/computeMetadata/v1/', 'GCP metadata short name'],
  ['http://instance-data/latest/meta-data/', 'AWS metadata name'],
];
const V6: Row[] = [
  ['http://[::1]/hook', 'IPv6 loopback'],
  ['http://[0:0:0:0:0:0:0:1]/hook', 'IPv6 loopback, long form'],
  ['http://[::]/hook', 'IPv6 unspecified'],
  ['http://[::ffff:127.0.0.1]/hook', 'IPv4-mapped loopback'],
  ['http://[::ffff:7f00:1]/hook', 'IPv4-mapped loopback, hex'],
  ['http://[::ffff:10.0.0.1]/hook', 'IPv4-mapped private'],
  ['http://[::ffff:0:7f00:1]/hook', 'IPv4-translated (RFC 6145)'],
  ['http://[::127.0.0.1]/hook', 'IPv4-compatible loopback'],
  ['http://[::a00:1]/hook', 'IPv4-compatible private'],
  ['http://[::5db8:d822]/hook', 'IPv4-compatible of a public address'],
  ['http://[64:ff9b::7f00:1]/hook', 'NAT64 of loopback'],
  ['http://[64:ff9b::a9fe:a9fe]/hook', 'NAT64 of metadata'],
  ['http://[64:ff9b::5db8:d822]/hook', 'NAT64 of a public address'],
  ['http://[64:ff9b:1::a00:1]/hook', 'local-use NAT64 64:ff9b:1::/48'],
  ['http://[2002:7f00:1::1]/hook', '6to4 of loopback'],
  ['http://[2002:a9fe:a9fe::1]/hook', '6to4 of metadata'],
  ['http://[2002:5db8:d822::1]/hook', '6to4 of a public address'],
  ['http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook', 'Teredo'],
  ['http://[2001::1]/hook', 'Teredo prefix'],
  ['http://[fe80::1]/hook', 'link-local'],
  ['http://[febf::1]/hook', 'link-local, top of fe80::/10'],
  ['http://[fc00::1]/hook', 'unique-local fc00::/7'],
  ['http://[fd12:3456:789a::1]/hook', 'unique-local fd00::/8'],
  ['http://[fec0::1]/hook', 'site-local (deprecated)'],
  ['http://[ff02::1]/hook', 'multicast, link scope'],
  ['http://[ff05::1:3]/hook', 'multicast, site scope'],
  ['http://[100::1]/hook', 'discard-only 100::/64'],
  ['http://[2001:db8::1]/hook', 'documentation 2001:db8::/32'],
  ['http://[2001:2::1]/hook', 'benchmarking 2001:2::/48'],
];
const NAMES: Row[] = [
  ['http://localhost/hook', 'localhost', PUBLIC],
  ['http://LOCALHOST:8080/hook', 'localhost, upper case', PUBLIC],
  ['http://localhost./hook', 'localhost, trailing dot', PUBLIC],
  ['http://api.localhost/hook', '*.localhost', PUBLIC],
  ['http://a.b.c.localhost/hook', '*.localhost, deep', PUBLIC],
  ['http://ｌｏｃａｌｈｏｓｔ/hook', 'localhost, full-width letters', PUBLIC],
  ['http://localhost.localdomain/hook', 'localhost.localdomain'],
  ['http://127.0.0.1.nip.io/hook', 'a name made to resolve to loopback'],
  ['http://no-such-host.invalid/hook', 'a name that resolves to nothing'],
];
const CREDENTIAL_ROWS: Row[] = [
  ['https://user:pass@93.184.216.34/hook', 'user and password', CREDENTIALS],
  ['https://user@93.184.216.34/hook', 'user only', CREDENTIALS],
  ['https://:pass@93.184.216.34/hook', 'password only', CREDENTIALS],
  ['http://93.184.216.34@127.0.0.1/hook', 'public-looking user, loopback host'],
  ['http://127.0.0.1#@93.184.216.34/hook', 'fragment hiding the loopback host', PUBLIC],
  ['http://127.0.0.1:80\\@93.184.216.34/hook', 'backslash confusion'],
];
const SCHEMES: Row[] = [
  ['file:///etc/passwd', 'file'],
  ['gopher://127.0.0.1:70/_x', 'gopher'],
  ['dict://127.0.0.1:11211/stat', 'dict'],
  ['ftp://93.184.216.34/hook', 'ftp'],
  ['ws://93.184.216.34/hook', 'ws'],
  ['ldap://93.184.216.34/dc=x', 'ldap'],
  ['javascript:alert(1)', 'javascript'],
  ['data:text/plain,hello', 'data'],
  ['//93.184.216.34/hook', 'scheme-relative'],
  ['/hook', 'relative'],
  ['93.184.216.34/hook', 'no scheme'],
];

/** Loopback, RFC 1918, link-local and unique-local addresses as /etc/hosts writes them. */
const NON_PUBLIC = /^(127\.|10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.|::1$|fe80:|f[cd])/i;

/** Names in /etc/hosts that name a non-public address (this machine's own names, typically). */
function hostsFileNames(): Row[] {
  let text: string;
  try {
    text = readFileSync('/etc/hosts', 'utf8');
  } catch {
    return [];
  }
  const rows: Row[] = [];
  for (const line of text.split('\n')) {
    const [address, ...names] = line.replace(/#.*/, '').trim().split(/\s+/);
    if (!address || !NON_PUBLIC.test(address)) continue;
    for (const name of names) if (name.includes('.') || /^[a-z][\w-]*$/i.test(name)) rows.push([`http://${name}/hook`, `/etc/hosts name for ${address}`]);
  }
  return rows;
}

const REFUSED: Array<[string, Row[]]> = [
  ['IPv4 loopback in every notation', LOOPBACK_V4],
  ['IPv4 private ranges', PRIVATE_V4],
  ['IPv4 special-purpose ranges', SPECIAL_V4],
  ['cloud metadata endpoints', METADATA],
  ['IPv6 special ranges and embedded IPv4', V6],
  ['names of this machine and names that do not resolve', [...NAMES, ...hostsFileNames()]],
  ['credentials and parser confusion', CREDENTIAL_ROWS],
  ['schemes other than http and https', SCHEMES],
];

const ACCEPTED: Row[] = [
  ['https://93.184.216.34/hook', 'public IPv4'],
  ['http://1.1.1.1:8080/hooks/preflight?x=1', 'public IPv4 with a port and a query'],
  ['https://1572395042/hook', 'public IPv4, decimal'],
  ['https://[2606:2800:220:1:248:1893:25c8:1946]/hook', 'public IPv6'],
  ['https://[::ffff:93.184.216.34]/hook', 'IPv4-mapped public address'],
];

let sys: RunningSystem;
let t: Awaited<ReturnType<typeof freshTenant>>;
const create = (url: string) => call(sys, 'POST', '/api/v1/webhooks', { apiKey: t.keys.all!.key, body: { url, events: ['IssueCreated'] } });

beforeAll(async () => {
  sys = await startSystem({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' });
  t = await freshTenant(sys);
}, 180_000);
afterAll(async () => {
  await sys?.stop();
});

describe('SSRF battery: webhook URLs that are not public are refused (422, errors.url)', () => {
  for (const [group, rows] of REFUSED) {
    describe(group, () => {
      it.each(rows)('%s (%s)', async (url, _what, message) => {
        const res = await create(url);
        const problem = expectProblem(res, 422);
        expect(problem.type).toBe('https://preflight.dev/problems/validation');
        expect(problem.errors.url, JSON.stringify(problem.errors)).toEqual([expect.any(String)]);
        if (message) expect(problem.errors.url[0]).toContain(message);
        expect(res.text).not.toContain('"secret"');
      });
    });
  }

  it('the names of /etc/hosts on this machine resolve to non-public addresses, so the battery covers "resolves to"', async () => {
    const rows = hostsFileNames();
    for (const [url] of rows) {
      const host = new URL(url).hostname;
      const addresses = await lookup(host, { all: true });
      expect(addresses.length, host).toBeGreaterThan(0);
      for (const { address } of addresses) expect(address, host).toMatch(NON_PUBLIC);
    }
  });

  it('public IP literals are accepted and listed, and nothing refused was stored', async () => {
    const created: string[] = [];
    for (const [url, what] of ACCEPTED) {
      const res = await create(url);
      expect(res.status, `${what}: ${res.text}`).toBe(201);
      expect(res.body.url).toBe(url);
      created.push(res.body.id);
    }
    const list = await call(sys, 'GET', '/api/v1/webhooks', { apiKey: t.keys.all!.key });
    expect(list.status).toBe(200);
    expect((list.body as Array<{ id: string }>).map((w) => w.id).sort()).toEqual(created.sort());
  });
});
