import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for the gateway's admin API, for the pages' handlers (the real one is exercised end
 * to end by tests/browser): it records every call with its body and answers what a test set for
 * `METHOD /path`, anything else a 404 problem.
 */

export interface Seen {
  method: string;
  path: string;
  body: unknown;
}

export interface StandInGateway {
  url: string;
  seen: Seen[];
  /** `METHOD /path` → [status, body]. */
  answers: Map<string, [number, unknown]>;
  /** The calls other than GET (what a form did). */
  writes(): Seen[];
  reset(): void;
  close(): Promise<void>;
}

export const problem = (status: number, detail: string, errors?: Record<string, string[]>) => ({ type: 'about:blank', title: 'x', status, detail, instance: null, traceId: null, ...(errors ? { errors } : {}) });

export async function startStandInGateway(): Promise<StandInGateway> {
  const seen: Seen[] = [];
  const answers = new Map<string, [number, unknown]>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const path = req.url!;
      seen.push({ method: req.method!, path, body: text ? JSON.parse(text) : undefined });
      const [status, body] = answers.get(`${req.method} ${path}`) ?? [404, problem(404, 'Not found.')];
      if (status === 204) {
        res.writeHead(204).end();
        return;
      }
      res.writeHead(status, { 'content-type': status >= 400 ? 'application/problem+json' : 'application/json' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    answers,
    writes: () => seen.filter((s) => s.method !== 'GET'),
    reset() {
      seen.length = 0;
      answers.clear();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export const NOW = '2026-11-27T14:00:00.000Z';
export const CAMPAIGN = '11111111-1111-4111-8111-111111111111';
export const ISSUE = '22222222-2222-4222-8222-222222222222';
export const WEBHOOK = '33333333-3333-4333-8333-333333333333';
export const TASK = '44444444-4444-4444-8444-444444444444';
export const TESTER = '55555555-5555-4555-8555-555555555555';

export const campaign = { id: CAMPAIGN, name: 'Spring launch', status: 'Draft', siteId: CAMPAIGN, siteName: 'Shop', readinessLevel: 'ReadyToLaunch', gate: 'cleared', createdAt: NOW };
export const report = { version: 1, readinessLevel: 'ReadyToLaunch', gate: 'cleared', sealState: 'open', sealedVersion: null, requiredCount: 0, signedCount: 0, waivedCount: 0, entries: [] };
export const webhook = { id: WEBHOOK, name: 'Receiver', url: 'https://example.com/hook', events: null, isEnabled: true, source: 'dashboard', createdAt: NOW, consecutiveFailures: 0, disabledAt: null, stats: null };
export const task = { id: TASK, title: 'Buy something', required: true };
export const tester = { id: TESTER, name: 'Tess', email: 'tess@example.com', preview: false, status: 'Invited', verdict: null, completedAt: null, completedTasks: [] };

/** What the campaign page reads, its issues' first page empty. */
export function campaignPageAnswers(answers: StandInGateway['answers']): void {
  answers.set(`GET /admin/v1/campaigns/${CAMPAIGN}`, [200, campaign]);
  answers.set(`GET /admin/v1/campaigns/${CAMPAIGN}/report`, [200, report]);
  answers.set(`GET /admin/v1/campaigns/${CAMPAIGN}/signers`, [200, []]);
  answers.set(`GET /admin/v1/campaigns/${CAMPAIGN}/issues?page=1&pageSize=25`, [200, { items: [], page: 1, pageSize: 25, total: 0, hasMore: false }]);
  answers.set(`GET /admin/v1/campaigns/${CAMPAIGN}/tasks`, [200, [task]]);
  answers.set(`GET /admin/v1/campaigns/${CAMPAIGN}/testers`, [200, [tester]]);
}
