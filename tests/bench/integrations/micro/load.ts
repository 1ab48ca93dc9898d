// Child: provider and issue-service stand-ins on loopback, and the publisher of IssueCreated events.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { createEvent, toTimestamp } from '@preflight/events';
import { eventPublisher } from '@preflight/testing';

const prefix = process.argv[2]!;
const counts = { slack: 0, teams: 0, ghCreate: 0, ghOther: 0, issueRead: 0 };
const issues = new Map<string, Record<string, unknown>>();
let ghNumber = 0;
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const url = req.url ?? '';
    if (url.startsWith('/slack/')) { counts.slack++; res.writeHead(200, { 'content-type': 'text/plain' }); return res.end('ok'); }
    if (url.startsWith('/teams/')) { counts.teams++; res.writeHead(202); return res.end(); }
    const m = /^\/internal\/v1\/issues\/([^/?]+)$/.exec(url);
    if (m) {
      counts.issueRead++;
      const i = issues.get(m[1]!);
      res.writeHead(i ? 200 : 404, { 'content-type': 'application/json' });
      return res.end(JSON.stringify(i ?? { status: 404 }));
    }
    if (req.method === 'POST' && /^\/repos\/[^/]+\/[^/]+\/issues$/.test(url)) {
      counts.ghCreate++;
      const n = ++ghNumber;
      res.writeHead(201, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ number: n, html_url: `http://gh.local/issues/${n}`, state: 'open', state_reason: null, title: 't', body: '' }));
    }
    if (req.method === 'GET' && /^\/repos\/[^/]+\/[^/]+$/.test(url)) { res.writeHead(200, { 'content-type': 'application/json' }); return res.end('{"id":1}'); }
    counts.ghOther++;
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"message":"Not Found"}');
  });
});
server.keepAliveTimeout = 60_000;
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const pub = await eventPublisher(prefix);
process.send!({ type: 'listening', port: (server.address() as AddressInfo).port });

let seq = 0;
process.on('message', async (msg: any) => {
  if (msg.type === 'counts') return process.send!({ type: 'counts', counts });
  if (msg.type === 'campaigns') {
    for (let k = 0; k < msg.orgs.length; k++) {
      await pub.publish(createEvent('CampaignCreated', { campaignId: msg.campaigns[k], orgId: msg.orgs[k], siteId: randomUUID(), name: `Campaign ${k}`, status: 'Draft', createdAt: toTimestamp(new Date()) }), { orgId: msg.orgs[k] });
    }
    return process.send!({ type: 'campaigns' });
  }
  if (msg.type === 'file') {
    const { orgs, campaigns, count, rate } = msg as { orgs: string[]; campaigns: string[]; count: number; rate: number };
    const t0 = performance.now();
    const pending: Promise<unknown>[] = [];
    for (let i = 0; i < count; i++) {
      const due = t0 + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      const k = i % orgs.length;
      const orgId = orgs[k]!;
      const campaignId = campaigns[k]!;
      seq++;
      const id = randomUUID();
      const createdAt = new Date().toISOString();
      const issue = { id, orgId, seqNumber: seq, campaignId, campaignName: 'Spring release', title: `Bench issue ${seq}`, severity: 'High', type: 'Bug', status: 'New',
        description: 'Nothing happens on click.', pageUrl: 'https://shop.example.com/checkout', testerEmail: 'tess@example.com', createdAt,
        stepsToReproduce: null, expectedBehavior: null, actualBehavior: null, pageTitle: null, browserName: 'Firefox', browserVersion: '132', operatingSystem: null,
        deviceType: null, screenResolution: null, screenshotUrl: null, reporter: 'tess@example.com', assigneeName: null, duplicateOfId: null, duplicateOfSeqNumber: null,
        updatedAt: createdAt, siteId: randomUUID(), siteName: 'Shop', history: [] };
      issues.set(id, issue);
      const event = createEvent('IssueCreated', { issueId: id, orgId, campaignId, seqNumber: seq, title: issue.title, severity: 'High', type: 'Bug', status: 'New',
        pageUrl: issue.pageUrl, testerEmail: issue.testerEmail, createdAt: toTimestamp(new Date(createdAt)), revision: 1 });
      pending.push(pub.publish(event, { orgId }));
    }
    await Promise.all(pending);
    process.send!({ type: 'filed' });
  }
  if (msg.type === 'close') { await pub.close(); server.close(); process.exit(0); }
});
