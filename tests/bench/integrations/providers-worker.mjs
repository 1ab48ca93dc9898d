// The provider stand-ins of the integration benchmark, in a worker thread of their own so that
// the generator's event loop never delays an arrival timestamp (and the other way round).
// Plain JavaScript: worker threads do not inherit tsx's loader in every setup.
//
// Lean recorders, not libs/provider-fakes: the fakes keep every request (headers and body) and
// every GitHub issue in memory and search them linearly, which over the ~100,000 calls of a run
// would make the fakes, not the service, what is measured. These answer as the real providers
// (and the fakes) do for the calls the service makes when an issue is filed, and check only the
// shape the service's clients rely on (the fakes' own tests and tests/e2e/integrations.test.ts
// check the payloads in full):
//   slack    POST /services/TBENCH<k>/BBENCH<k>/<secret>   JSON with `text` (and `blocks`) → 200 `ok`
//   teams    POST /workflows/<k>/invoke?api-version=1&sig=… `{type:"message", attachments:[…]}` → 202
//   github   POST /repos/bench/org-<k>/issues  (Authorization: token …, JSON title) → 201 issue JSON
//            GET  /repos/bench/org-<k>/issues/<n>  → 200 issue JSON (the service's status read-back)
//            PATCH …/issues/<n> → 200 (not expected: a new issue is already open)
// Server 0 is the Slack of every organisation but the first; server 1 is a dedicated Slack
// instance for organisation 0, the one whose webhook can be made to hang.
//
// workerData: { counters: SharedArrayBuffer }
//   counters (Int32): [0] Slack posts, [1] Teams posts, [2] GitHub creates, [3] GitHub reads,
//   [4] other GitHub calls, [5] refused (bad shape), [6] requests held by a hanging server.
// Messages in:  { type: 'collect', id }  → { type: 'collected', id, records }  and resets the records
//               { type: 'behaviour', id, server, mode: 'normal' | 'hang' } → { type: 'done', id }
//               { type: 'close', id }    → { type: 'closed', id }
// Out at start: { type: 'listening', ports: { slack, slackDedicated, teams, github } }
//
// Each accepted call is recorded with its kind (0–4 as the counters), the organisation from
// its path, the issue's title parts (`bench:<phase>:<seq>:<sentNs>`; a GitHub read takes them
// from the issue it reads) and the arrival time on the machine's monotonic clock
// (process.hrtime, shared by every process and thread).
import { createServer } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

const counters = new Int32Array(workerData.counters);
const SLACK = 0;
const TEAMS = 1;
const GH_CREATE = 2;
const GH_READ = 3;
const GH_OTHER = 4;
const REFUSED = 5;
const HELD = 6;
const TITLE = /bench:([a-z0-9-]+):(\d+):(\d+)/;

let records = [];
const servers = [];
/** GitHub issues by `<org>/<number>`: the title parts a read of it is matched with. */
const issues = new Map();
const nextNumber = new Map();

function record(kind, org, m, arrivedNs) {
  Atomics.add(counters, kind, 1);
  records.push({ k: kind, o: org, phase: m ? m[1] : '', seq: m ? Number(m[2]) : -1, sentNs: m ? m[3] : '0', arrivedNs: arrivedNs.toString() });
}

function refuse(res, status, body, type = 'text/plain; charset=utf-8') {
  Atomics.add(counters, REFUSED, 1);
  res.writeHead(status, { 'content-type': type });
  res.end(body);
}

function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function slack(req, res, body, arrivedNs) {
  const m = /^\/services\/TBENCH(\d+)\/BBENCH\d+\/[A-Za-z0-9]+$/.exec(req.url ?? '');
  if (!m) return refuse(res, 404, 'no_service');
  const msg = parseJson(body);
  if (req.method !== 'POST' || typeof msg !== 'object' || msg === null || typeof msg.text !== 'string') return refuse(res, 400, 'invalid_payload');
  record(SLACK, Number(m[1]), TITLE.exec(body), arrivedNs);
  res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
  res.end('ok');
}

function teams(req, res, body, arrivedNs) {
  const m = /^\/workflows\/(\d+)\/invoke\?api-version=1&sig=[A-Za-z0-9_-]+$/.exec(req.url ?? '');
  if (!m) return refuse(res, 404, JSON.stringify({ error: { code: 'WorkflowNotFound', message: 'The workflow could not be found.' } }), 'application/json');
  const msg = parseJson(body);
  if (req.method !== 'POST' || msg?.type !== 'message' || !Array.isArray(msg.attachments) || msg.attachments.length < 1) {
    return refuse(res, 400, JSON.stringify({ error: { code: 'TriggerInputSchemaMismatch', message: 'type must be "message".' } }), 'application/json');
  }
  record(TEAMS, Number(m[1]), TITLE.exec(body), arrivedNs);
  res.writeHead(202);
  res.end();
}

function issueJson(base, org, number, title, state = 'open') {
  const url = `${base}/repos/bench/org-${org}/issues/${number}`;
  return {
    id: org * 1_000_000 + number,
    node_id: `I_${org}_${number}`,
    url,
    repository_url: `${base}/repos/bench/org-${org}`,
    html_url: `https://github.com/bench/org-${org}/issues/${number}`,
    number,
    state,
    state_reason: null,
    title,
    body: null,
    user: { login: 'preflight-bot', id: 1, type: 'User' },
    labels: [],
    assignee: null,
    assignees: [],
    milestone: null,
    locked: false,
    comments: 0,
    created_at: new Date().toISOString(),
    updated_at: new Date().toISOString(),
    closed_at: null,
  };
}

function github(req, res, body, arrivedNs, base) {
  if (!/^token \S+$/i.test(String(req.headers.authorization ?? ''))) return refuse(res, 401, JSON.stringify({ message: 'Requires authentication' }), 'application/json');
  const m = /^\/repos\/bench\/org-(\d+)\/issues(?:\/(\d+))?$/.exec((req.url ?? '').split('?')[0]);
  if (!m) return refuse(res, 404, JSON.stringify({ message: 'Not Found' }), 'application/json');
  const org = Number(m[1]);
  const json = (status, value) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'x-ratelimit-limit': '5000', 'x-ratelimit-remaining': '4999' });
    res.end(JSON.stringify(value));
  };
  if (m[2] === undefined && req.method === 'POST') {
    const msg = parseJson(body);
    if (typeof msg?.title !== 'string' || !msg.title.trim()) return refuse(res, 422, JSON.stringify({ message: 'Validation Failed' }), 'application/json');
    const number = (nextNumber.get(org) ?? 0) + 1;
    nextNumber.set(org, number);
    const t = TITLE.exec(msg.title);
    issues.set(`${org}/${number}`, t);
    record(GH_CREATE, org, t, arrivedNs);
    return json(201, issueJson(base, org, number, msg.title));
  }
  if (m[2] === undefined) return refuse(res, 404, JSON.stringify({ message: 'Not Found' }), 'application/json');
  const number = Number(m[2]);
  const key = `${org}/${number}`;
  if (!issues.has(key)) return refuse(res, 404, JSON.stringify({ message: 'Not Found' }), 'application/json');
  const t = issues.get(key);
  record(req.method === 'GET' ? GH_READ : GH_OTHER, org, t, arrivedNs);
  return json(200, issueJson(base, org, number, t ? t[0] : 'issue'));
}

function server(handler, opts = {}) {
  const held = new Set();
  const s = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const arrivedNs = process.hrtime.bigint();
      if (s.hang) {
        Atomics.add(counters, HELD, 1);
        held.add(res);
        res.on('close', () => held.delete(res));
        return;
      }
      handler(req, res, Buffer.concat(chunks).toString('utf8'), arrivedNs, opts.base);
    });
  });
  s.hang = false;
  s.held = held;
  s.keepAliveTimeout = 30_000;
  return s;
}

async function listen(s) {
  await new Promise((resolve) => s.listen(0, '127.0.0.1', resolve));
  servers.push(s);
  return s.address().port;
}

const slackShared = server(slack);
const slackDedicated = server(slack);
const teamsServer = server(teams);
const opts = { base: '' };
const githubServer = server(github, opts);
const ports = {
  slack: await listen(slackShared),
  slackDedicated: await listen(slackDedicated),
  teams: await listen(teamsServer),
  github: await listen(githubServer),
};
opts.base = `http://127.0.0.1:${ports.github}`;
const byName = { slack: slackShared, slackDedicated, teams: teamsServer, github: githubServer };
parentPort.postMessage({ type: 'listening', ports });

parentPort.on('message', async (msg) => {
  if (msg.type === 'collect') {
    const out = records;
    records = [];
    parentPort.postMessage({ type: 'collected', id: msg.id, records: out });
  } else if (msg.type === 'behaviour') {
    const s = byName[msg.server];
    s.hang = msg.mode === 'hang';
    // Back to normal: what was held is cut off, as the fakes' setBehaviour does.
    if (!s.hang) for (const res of s.held) res.destroy();
    parentPort.postMessage({ type: 'done', id: msg.id });
  } else if (msg.type === 'close') {
    for (const s of servers) {
      for (const res of s.held) res.destroy();
      s.closeAllConnections();
    }
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(() => resolve()))));
    parentPort.postMessage({ type: 'closed', id: msg.id });
    parentPort.close();
  }
});
