import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMITTED_EVENT_TYPES, EVENT_DATA_FIELDS, EventEnvelopeSchema, RESERVED_EVENT_TYPES } from '@preflight/contract';
import { asAdmin, asKey, expectProblem, startHarness, type Harness } from './harness.ts';

let h: Harness;
const key = asKey(randomUUID());

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

describe('GET /api/v1/events', () => {
  it('lists the nine emitted names in spec order', async () => {
    const res = await h.call('GET', '/api/v1/events', { as: key });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual([...EMITTED_EVENT_TYPES]);
    expect(res.body).toHaveLength(9);
    for (const reserved of RESERVED_EVENT_TYPES) expect(res.body).not.toContain(reserved);
  });

  it('needs an API-key caller', async () => {
    expectProblem(await h.call('GET', '/api/v1/events'), 401);
    expectProblem(await h.call('GET', '/api/v1/events', { as: asAdmin }), 401);
  });
});

describe('GET /api/v1/events/:eventKey/sample', () => {
  it.each(EMITTED_EVENT_TYPES.map((e) => [e]))('answers an envelope for %s with exactly its spec 6.2 data fields', async (eventType) => {
    const res = await h.call('GET', `/api/v1/events/${eventType}/sample`, { as: key });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'eventType', 'id', 'occurredAt']);
    expect(EventEnvelopeSchema.parse(res.body)).toBeTruthy();
    expect(res.body.eventType).toBe(eventType);
    expect(res.body.occurredAt).toBe(new Date(res.body.occurredAt).toISOString());
    expect(Object.keys(res.body.data).sort()).toEqual([...EVENT_DATA_FIELDS[eventType]].sort());
  });

  it.each([...RESERVED_EVENT_TYPES.map((e) => [e, 'reserved']), ['IssueDeleted', 'unknown'], ['issuecreated', 'miscased']])(
    'answers 404 for %s (%s)',
    async (name) => {
      const problem = expectProblem(await h.call('GET', `/api/v1/events/${name}/sample`, { as: key }), 404);
      expect(problem.detail).toContain(`'${name}'`);
    },
  );

  it('needs an API-key caller', async () => {
    expectProblem(await h.call('GET', '/api/v1/events/IssueCreated/sample'), 401);
  });
});
