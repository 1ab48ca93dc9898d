import { afterAll } from 'vitest';
import { createSafeFetch } from '../../src/outbound/safe-fetch.ts';
import type { IssueCard, IssueDetail, SafeFetch } from '../../src/providers/provider.ts';

/** What the provider tests share: an issue to announce or file, and SafeFetches to send it with. */

export function issueCard(overrides: Partial<IssueCard> = {}): IssueCard {
  return {
    issueId: '6f1c2d3e-0000-4000-8000-000000000012',
    seqNumber: 12,
    title: 'Checkout button does nothing',
    severity: 'High',
    type: 'Bug',
    status: 'New',
    campaignId: '6f1c2d3e-0000-4000-8000-0000000000c1',
    campaignName: 'Spring release',
    pageUrl: 'https://shop.example.com/checkout?step=2',
    reporter: 'tess@example.com',
    link: 'https://app.preflight.test/issues/6f1c2d3e-0000-4000-8000-000000000012',
    createdAt: '2025-03-01T10:00:00.000Z',
    ...overrides,
  };
}

let detailSeq = 0;

/** A fully described issue for a tracker, with an id and number of its own at each call. */
export function issueDetail(overrides: Partial<IssueDetail> = {}): IssueDetail {
  detailSeq += 1;
  return {
    ...issueCard({ issueId: `6f1c2d3e-0000-4000-8000-${String(detailSeq).padStart(12, '0')}`, seqNumber: 40 + detailSeq, severity: 'Critical' }),
    description: 'Clicking "Pay" does nothing.\n\nTried twice.',
    stepsToReproduce: '1. Add an item\n2. Press Pay',
    expectedBehavior: 'The payment page opens.',
    actualBehavior: 'Nothing happens.',
    pageTitle: 'Checkout',
    browserName: 'Firefox',
    browserVersion: '128',
    operatingSystem: 'macOS 14',
    deviceType: 'Desktop',
    screenResolution: '1920x1080',
    screenshotUrl: 'https://cdn.preflight.test/shots/1.png',
    ...overrides,
  };
}

/** SafeFetches with the given deadline; private targets allowed (the fakes listen on 127.0.0.1) unless said otherwise. */
export function safeFetches(): { create(timeoutMs?: number, allowPrivate?: boolean): SafeFetch } {
  const open = { true: createSafeFetch({ allowPrivate: true }), false: createSafeFetch({ allowPrivate: false }) };
  afterAll(async () => {
    await open.true.close();
    await open.false.close();
  });
  return { create: (timeoutMs = 5_000, allowPrivate = true) => open[`${allowPrivate}`].create(timeoutMs) };
}

/** The ProviderError a call failed with (or the error, when it was something else). */
export async function failureOf(call: Promise<unknown>): Promise<Error> {
  try {
    await call;
  } catch (err) {
    return err as Error;
  }
  throw new Error('the call succeeded');
}
