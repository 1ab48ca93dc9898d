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
  it('forgets one disabled endpoint without a fetch, keeping its neighbours cached', async () => {
    const f = fixture(2_000);
    f.set([
      { id: 'e1', url: 'https://a.example/hook', secret: 's1', events: [] },
      { id: 'e2', url: 'https://b.example/hook', secret: 's2', events: [] },
    ]);
    await f.dir.endpointsFor(ORG, 'IssueCreated');
    f.dir.forget(ORG, 'e1');
    expect(f.dir.cachedEndpoint(ORG, 'IssueCreated', 'e1')).toEqual({ endpoint: undefined });
    expect(f.dir.cachedEndpoint(ORG, 'IssueCreated', 'e2')?.endpoint?.id).toBe('e2');
    expect((await f.dir.endpointsFor(ORG, 'IssueCreated')).map((e) => e.id)).toEqual(['e2']);
    expect(f.calls).toHaveLength(1);
  });

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

  it('answers an endpoint without waiting once its organisation\'s answer has arrived, within the TTL only', async () => {
    const f = fixture(2_000);
    expect(f.dir.cachedEndpoint(ORG, 'IssueCreated', 'e1')).toBeUndefined(); // never asked
    const asked = f.dir.endpointsFor(ORG, 'IssueCreated');
    expect(f.dir.cachedEndpoint(ORG, 'IssueCreated', 'e1')).toBeUndefined(); // asked, not arrived
    await asked;
    expect(f.dir.cachedEndpoint(ORG, 'IssueCreated', 'e1')).toEqual({ endpoint: expect.objectContaining({ id: 'e1' }) });
    expect(f.dir.cachedEndpoint(ORG, 'IssueCreated', 'e2')).toEqual({ endpoint: undefined }); // known: not subscribed
    expect(f.dir.cachedEndpoint(ORG, 'IssueClosed', 'e1')).toBeUndefined(); // another event type
    // A background refresh swaps the new answer in.
    f.set([{ id: 'e2', url: 'https://b.example/hook', secret: 's2', events: [] }]);
    f.dir.refresh(ORG);
    await new Promise((resolve) => setImmediate(resolve));
    expect(f.dir.cachedEndpoint(ORG, 'IssueCreated', 'e1')).toEqual({ endpoint: undefined });
    expect(f.dir.cachedEndpoint(ORG, 'IssueCreated', 'e2')?.endpoint?.id).toBe('e2');
    f.dir.invalidate(ORG);
    expect(f.dir.cachedEndpoint(ORG, 'IssueCreated', 'e2')).toBeUndefined();
    await f.dir.endpointsFor(ORG, 'IssueCreated');
    f.tick(2_000);
    expect(f.dir.cachedEndpoint(ORG, 'IssueCreated', 'e2')).toBeUndefined(); // expired
    expect(f.calls).toHaveLength(3);
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

  it('refreshes an organisation in the background: the old answer stands until the new one arrives, or if the call fails', async () => {
    const f = fixture(2_000);
    await f.dir.endpointsFor(ORG, 'IssueCreated');
    f.set([]);
    f.dir.refresh(ORG);
    f.dir.refresh(ORG); // one call per key at a time
    // The lookup does not wait for the refresh: it answers from the entry it has.
    expect((await f.dir.endpointsFor(ORG, 'IssueCreated')).map((e) => e.id)).toEqual(['e1']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(await f.dir.endpointsFor(ORG, 'IssueCreated')).toEqual([]);
    expect(f.calls).toHaveLength(2);
    f.failOnce();
    f.dir.refresh(ORG);
    await new Promise((resolve) => setImmediate(resolve));
    expect(await f.dir.endpointsFor(ORG, 'IssueCreated')).toEqual([]);
    expect(f.calls).toHaveLength(3);
  });

  it('never lets a refresh that lands late overwrite an answer newer than the one it replaces', async () => {
    const e1: Endpoint = { id: 'e1', url: 'https://a.example/hook', secret: 's1', events: [] };
    const calls: Array<(e: Endpoint[]) => void> = [];
    const dir = new EndpointDirectory({ endpointsFor: () => new Promise<Endpoint[]>((resolve) => calls.push(resolve)) }, 2_000, 10, () => 0);
    const first = dir.endpointsFor(ORG, 'IssueCreated');
    calls[0]!([e1]);
    await first;
    dir.refresh(ORG); // calls[1]
    dir.invalidate(ORG); // the endpoint was deleted (the webhook service's signal)
    const after = dir.endpointsFor(ORG, 'IssueCreated'); // calls[2]
    calls[2]!([]);
    expect(await after).toEqual([]);
    calls[1]!([e1]); // the refresh, asked before the deletion, answers last
    await new Promise((resolve) => setImmediate(resolve));
    expect(await dir.endpointsFor(ORG, 'IssueCreated')).toEqual([]);
    expect(calls).toHaveLength(3);
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

  it('drops expired answers at the next miss after a TTL, not only when full', async () => {
    const f = fixture(2_000); // room for 3 entries
    await f.dir.endpointsFor(ORG, 'A');
    await f.dir.endpointsFor(OTHER, 'B');
    expect(f.dir.size).toBe(2);
    f.tick(2_000);
    await f.dir.endpointsFor(ORG, 'C');
    expect(f.dir.size).toBe(1);
  });
});
