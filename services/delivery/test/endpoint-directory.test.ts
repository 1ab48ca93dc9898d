import { describe, expect, it } from 'vitest';
import { EndpointDirectory } from '../src/clients/endpoint-directory.ts';
import type { Endpoint } from '../src/clients/webhook-client.ts';

const ORG = '0b6c1f0e-3f0f-4a7e-9d0a-0c7e1b2a9f11';
const OTHER = '3f1c1e9a-8d0b-4c2e-9a57-0f6a2b7d4c11';

function fixture(ttlMs: number) {
  let clock = 0;
  const calls: string[] = [];
  let current: Endpoint[] = [{ id: 'e1', url: 'https://a.example/hook', secret: 's1', events: [] }];
  let failNext = false;
  const client = {
    async endpointsFor(orgId: string, eventType: string) {
      calls.push(`${orgId} ${eventType}`);
      if (failNext) {
        failNext = false;
        throw new Error('webhook service down');
      }
      return current;
    },
  };
  const dir = new EndpointDirectory(client, ttlMs, 3, () => clock);
  return {
    dir,
    calls,
    tick: (ms: number) => (clock += ms),
    set: (e: Endpoint[]) => (current = e),
    failOnce: () => (failNext = true),
  };
}

describe('EndpointDirectory', () => {
  it('answers from the cache within the TTL and asks again after it', async () => {
    const f = fixture(2_000);
    expect((await f.dir.endpointsFor(ORG, 'IssueCreated')).map((e) => e.id)).toEqual(['e1']);
    f.set([]); // deleted in the webhook service
    f.tick(1_999);
    expect(await f.dir.endpoint(ORG, 'IssueCreated', 'e1')).toBeDefined();
    expect(f.calls).toHaveLength(1);
    f.tick(1);
    expect(await f.dir.endpoint(ORG, 'IssueCreated', 'e1')).toBeUndefined();
    expect(f.calls).toHaveLength(2);
  });

  it('keys by organisation and event type, shares one call between concurrent misses', async () => {
    const f = fixture(2_000);
    await Promise.all([f.dir.endpointsFor(ORG, 'IssueCreated'), f.dir.endpointsFor(ORG, 'IssueCreated'), f.dir.endpointsFor(ORG, 'IssueClosed'), f.dir.endpointsFor(OTHER, 'IssueCreated')]);
    expect(f.calls.sort()).toEqual([`${ORG} IssueClosed`, `${ORG} IssueCreated`, `${OTHER} IssueCreated`]);
  });

  it('forgets an organisation on invalidate, and never keeps a failure', async () => {
    const f = fixture(2_000);
    await f.dir.endpointsFor(ORG, 'IssueCreated');
    await f.dir.endpointsFor(OTHER, 'IssueCreated');
    f.set([]);
    f.dir.invalidate(ORG);
    expect(await f.dir.endpointsFor(ORG, 'IssueCreated')).toEqual([]);
    expect((await f.dir.endpointsFor(OTHER, 'IssueCreated')).map((e) => e.id)).toEqual(['e1']);
    expect(f.calls).toHaveLength(3);

    f.failOnce();
    f.dir.invalidate(ORG);
    await expect(f.dir.endpointsFor(ORG, 'IssueCreated')).rejects.toThrow('webhook service down');
    expect(await f.dir.endpointsFor(ORG, 'IssueCreated')).toEqual([]);
    expect(f.calls).toHaveLength(5);
  });

  it('asks every time with a TTL of 0, and stays bounded in size', async () => {
    const off = fixture(0);
    await off.dir.endpointsFor(ORG, 'IssueCreated');
    await off.dir.endpointsFor(ORG, 'IssueCreated');
    expect(off.calls).toHaveLength(2);

    const f = fixture(2_000); // room for 3 entries
    for (const type of ['A', 'B', 'C', 'D']) await f.dir.endpointsFor(ORG, type);
    await f.dir.endpointsFor(ORG, 'D');
    await f.dir.endpointsFor(ORG, 'A'); // the oldest was dropped for D
    expect(f.calls).toHaveLength(5);
  });
});
