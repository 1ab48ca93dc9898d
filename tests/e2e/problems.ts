import { expect } from 'vitest';
import type { ApiResponse } from '../support/client.ts';

/** Asserts an RFC 7807 problem with every field the spec lists (7.2), and returns its body. */
export function expectProblem(res: ApiResponse, status: number): Record<string, any> {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = res.body as Record<string, any>;
  for (const field of ['type', 'title', 'status', 'detail', 'instance', 'traceId']) expect(body, field).toHaveProperty(field);
  expect(body.status).toBe(status);
  expect(typeof body.traceId).toBe('string');
  expect(res.text).not.toMatch(/\n\s+at |select |insert into/i);
  if (status === 422 || status === 400) {
    if (body.errors !== undefined) expect(typeof body.errors).toBe('object');
  }
  return body;
}
