// The loopback webhook receivers of the delivery benchmark, in a worker thread of their own so
// that the publisher's event loop never delays an arrival timestamp (and the other way round).
// Plain JavaScript: worker threads do not inherit tsx's loader in every setup.
//
// workerData: { healthy: number, hanging: number, counters: SharedArrayBuffer }
//   counters (Int32): [0] arrivals at healthy receivers (all, duplicates included), [1] bad signatures.
// Messages in:  { type: 'secrets', secrets: string[] } (per healthy receiver, index order)
//               { type: 'collect', id }  → { type: 'collected', id, records }  and resets the records
//               { type: 'close', id }    → { type: 'closed', id }
// Out at start: { type: 'listening', healthyPorts: number[], hangingPorts: number[] }
//
// Each healthy receiver answers 204 after checking X-Service-Signature (hex HMAC-SHA256 of the
// raw body keyed with the secret as UTF-8, as the README's receiver does) and records, per
// request, its index, the webhook-id, the body's title (`bench:<phase>:<seq>:<publishNs>`) and
// the arrival time on the machine's monotonic clock (process.hrtime, shared by every process).
// A hanging receiver reads the request and never answers.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

const { healthy, hanging, counters: sab } = workerData;
const counters = new Int32Array(sab);
let secrets = [];
let records = [];
const servers = [];
const TITLE = /"title":"bench:([a-z0-9-]+):(\d+):(\d+)"/;

function healthyServer(index) {
  return createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const arrivedNs = process.hrtime.bigint();
      const body = Buffer.concat(chunks);
      const secret = secrets[index];
      let ok = true;
      if (secret !== undefined) {
        const expected = Buffer.from('sha256=' + createHmac('sha256', secret).update(body).digest('hex'));
        const got = Buffer.from(String(req.headers['x-service-signature'] ?? ''));
        ok = got.length === expected.length && timingSafeEqual(got, expected);
      }
      Atomics.add(counters, 0, 1);
      if (!ok) Atomics.add(counters, 1, 1);
      const m = TITLE.exec(body.toString('utf8'));
      records.push({
        r: index,
        id: String(req.headers['webhook-id'] ?? ''),
        phase: m ? m[1] : '',
        seq: m ? Number(m[2]) : -1,
        publishedNs: m ? m[3] : '0',
        arrivedNs: arrivedNs.toString(),
        ok,
      });
      res.statusCode = ok ? 204 : 401;
      res.end();
    });
  });
}

function hangingServer() {
  // Accepts, reads the request, never answers.
  return createServer((req) => {
    req.resume();
  });
}

async function listen(server) {
  server.keepAliveTimeout = 30_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return server.address().port;
}

const healthyPorts = [];
for (let i = 0; i < healthy; i++) healthyPorts.push(await listen(healthyServer(i)));
const hangingPorts = [];
for (let i = 0; i < hanging; i++) hangingPorts.push(await listen(hangingServer()));
parentPort.postMessage({ type: 'listening', healthyPorts, hangingPorts });

parentPort.on('message', async (msg) => {
  if (msg.type === 'secrets') secrets = msg.secrets;
  else if (msg.type === 'collect') {
    const out = records;
    records = [];
    parentPort.postMessage({ type: 'collected', id: msg.id, records: out });
  } else if (msg.type === 'close') {
    for (const s of servers) s.closeAllConnections();
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(() => resolve()))));
    parentPort.postMessage({ type: 'closed', id: msg.id });
    parentPort.close();
  }
});
