import { randomUUID } from 'node:crypto';
import { createEvent, toTimestamp, type DomainEvent } from '@preflight/events';

export const at = new Date('2025-03-01T12:00:00.000Z');

export function issueCreated(orgId: string, campaignId = randomUUID(), issueId = randomUUID()): DomainEvent {
  return createEvent('IssueCreated', {
    issueId,
    orgId,
    campaignId,
    seqNumber: 7,
    title: 'Checkout fails',
    severity: 'High',
    type: 'Bug',
    status: 'New',
    pageUrl: 'https://shop.example.com/checkout',
    testerEmail: 'tester@example.com',
    reporter: 'API key ci',
    createdAt: toTimestamp(at),
    revision: 1,
  });
}

export function issueStatusChanged(orgId: string, oldStatus: string, newStatus: string, campaignId = randomUUID(), issueId = randomUUID()): DomainEvent {
  return createEvent('IssueStatusChanged', {
    issueId,
    orgId,
    campaignId,
    title: 'Checkout fails',
    severity: 'High',
    oldStatus,
    newStatus,
    reason: `to ${newStatus}`,
    occurredAt: toTimestamp(at),
    revision: 2,
  });
}

export function campaignEvent(kind: 'CampaignLaunched' | 'CampaignClosed' | 'CampaignStatusChanged', orgId: string, oldStatus: string, status: string, campaignId = randomUUID()): DomainEvent {
  return createEvent(kind, { campaignId, orgId, name: 'Spring launch', oldStatus, status, occurredAt: toTimestamp(at) });
}
