import { describe, expect, it } from 'vitest';
import { EMITTED_EVENT_TYPES, EVENT_DATA_FIELDS, RESERVED_EVENT_TYPES } from '@preflight/contract';
import {
  CAMPAIGN_STATUSES,
  DOMAIN_EVENTS,
  DOMAIN_EVENT_KINDS,
  ISSUE_STATUSES,
  buildEnvelope,
  campaignStatusEventKind,
  createEvent,
  decodeEvent,
  encodeEvent,
  envelopesFor,
  file_preflight_campaign_v1_events,
  file_preflight_issue_v1_events,
  isSelectableEvent,
  kindOfSubject,
  sampleEnvelope,
  subjectOf,
  toPublicEvents,
  toTimestamp,
  type IssueStatus,
} from '../src/index.ts';

const at = new Date('2025-03-01T12:00:00.123Z');
const ids = { issueId: '11111111-1111-4111-8111-111111111111', orgId: '22222222-2222-4222-8222-222222222222', campaignId: '33333333-3333-4333-8333-333333333333' };

const statusChange = (oldStatus: IssueStatus, newStatus: IssueStatus) =>
  createEvent('IssueStatusChanged', { ...ids, title: 'Broken link', oldStatus, newStatus, reason: 'because', occurredAt: toTimestamp(at) });

describe('catalogue', () => {
  it('names subjects <prefix>.<owner>.<event_snake>', () => {
    expect(subjectOf('IssueStatusChanged')).toBe('preflight.issue.status_changed');
    expect(subjectOf('CampaignCreated', 't_x')).toBe('t_x.campaign.created');
    expect(kindOfSubject('t_x.issue.created', 't_x')).toBe('IssueCreated');
    expect(kindOfSubject('preflight.issue.created', 't_x')).toBeUndefined();
  });

  it('lists every message of proto/ exactly once, with unique subjects', () => {
    const inProto = [...file_preflight_campaign_v1_events.messages, ...file_preflight_issue_v1_events.messages].map((m) => m.typeName).sort();
    expect(DOMAIN_EVENT_KINDS.map((k) => DOMAIN_EVENTS[k].schema.typeName).sort()).toEqual(inProto);
    expect(new Set(DOMAIN_EVENT_KINDS.map((k) => subjectOf(k))).size).toBe(DOMAIN_EVENT_KINDS.length);
    for (const k of DOMAIN_EVENT_KINDS) expect(DOMAIN_EVENTS[k].schema.typeName).toBe(`preflight.${DOMAIN_EVENTS[k].owner}.v1.${k}`);
  });

  it('round-trips through binary protobuf, keeping absent optionals absent', () => {
    const event = createEvent('IssueCreated', { ...ids, seqNumber: 7, title: 'T', status: 'New', createdAt: toTimestamp(at) });
    const encoded = encodeEvent(event, 'p');
    expect(encoded.subject).toBe('p.issue.created');
    expect(encoded.type).toBe('preflight.issue.v1.IssueCreated');
    const decoded = decodeEvent(encoded.type, encoded.payload);
    expect(decoded.kind).toBe('IssueCreated');
    if (decoded.kind !== 'IssueCreated') throw new Error('kind');
    expect(decoded.message.seqNumber).toBe(7);
    expect(decoded.message.pageUrl).toBeUndefined();
    expect(decodeEvent('IssueCreated', encoded.payload).kind).toBe('IssueCreated');
    expect(() => decodeEvent('nope.Nope', encoded.payload)).toThrow(/unknown/);
  });

  it('picks one campaign event per status change', () => {
    expect(campaignStatusEventKind('Draft', 'Active')).toBe('CampaignLaunched');
    expect(campaignStatusEventKind('Paused', 'Active')).toBe('CampaignStatusChanged');
    expect(campaignStatusEventKind('Active', 'Paused')).toBe('CampaignStatusChanged');
    for (const from of CAMPAIGN_STATUSES) expect(campaignStatusEventKind(from, 'Closed')).toBe('CampaignClosed');
  });
});

describe('public events', () => {
  it('lists the 9 emitted and the 6 reserved names of spec 6.2 and 6.3', () => {
    expect(EMITTED_EVENT_TYPES).toHaveLength(9);
    expect(RESERVED_EVENT_TYPES).toHaveLength(6);
    expect(EMITTED_EVENT_TYPES.filter((e) => (RESERVED_EVENT_TYPES as readonly string[]).includes(e))).toEqual([]);
    expect(isSelectableEvent('TesterInvited')).toBe(true);
    expect(isSelectableEvent('IssueDeleted')).toBe(false);
  });

  it('maps every issue status change to exactly one, most specific, event', () => {
    const expected: Record<IssueStatus, string> = {
      New: 'IssueUpdated',
      Acknowledged: 'IssueUpdated',
      InProgress: 'IssueUpdated',
      Fixed: 'IssueUpdated',
      RetestRequested: 'RetestRequested',
      RetestFixed: 'RetestCompleted',
      RetestFailed: 'RetestCompleted',
      Closed: 'IssueClosed',
      WontFix: 'IssueClosed',
      Duplicate: 'IssueClosed',
    };
    for (const to of ISSUE_STATUSES) {
      const out = toPublicEvents(statusChange('New', to));
      expect(out.map((e) => e.eventType)).toEqual([expected[to]]);
    }
  });

  it('carries the data fields of spec 6.2', () => {
    const [changed] = toPublicEvents(statusChange('Fixed', 'RetestRequested'));
    expect(changed?.occurredAt.toISOString()).toBe(at.toISOString());
    expect(changed?.data).toEqual({ issueId: ids.issueId, campaignId: ids.campaignId, title: 'Broken link', oldStatus: 'Fixed', newStatus: 'RetestRequested', reason: 'because' });

    const created = createEvent('IssueCreated', { ...ids, seqNumber: 1, title: 'T', severity: 'Low', type: 'Bug', status: 'New', testerEmail: 'a@b.c', createdAt: toTimestamp(at) });
    expect(toPublicEvents(created)[0]?.data).toEqual({ issueId: ids.issueId, campaignId: ids.campaignId, title: 'T', severity: 'Low', type: 'Bug', status: 'New', pageUrl: null });

    const launched = createEvent('CampaignLaunched', { campaignId: ids.campaignId, orgId: ids.orgId, name: 'C', oldStatus: 'Draft', status: 'Active', occurredAt: toTimestamp(at) });
    expect(toPublicEvents(launched)).toEqual([{ eventType: 'CampaignLaunched', occurredAt: at, data: { campaignId: ids.campaignId, name: 'C', status: 'Active' } }]);
    const closed = createEvent('CampaignClosed', { campaignId: ids.campaignId, orgId: ids.orgId, oldStatus: 'Active', status: 'Closed', occurredAt: toTimestamp(at) });
    expect(toPublicEvents(closed)[0]).toMatchObject({ eventType: 'CampaignClosed', data: { name: null, status: 'Closed' } });
  });

  it('keeps a status change\'s origin out of the public payload, and round-trips it internally', () => {
    const synced = createEvent('IssueStatusChanged', { ...ids, title: 'Broken link', oldStatus: 'New', newStatus: 'Fixed', reason: 'because', origin: 'integration:44444444-4444-4444-8444-444444444444', occurredAt: toTimestamp(at) });
    const [publicEvent] = toPublicEvents(synced);
    expect(publicEvent).toEqual(toPublicEvents(statusChange('New', 'Fixed'))[0]);
    expect(publicEvent?.data).not.toHaveProperty('origin');
    const encoded = encodeEvent(synced, 'p');
    const decoded = decodeEvent(encoded.type, encoded.payload);
    if (decoded.kind !== 'IssueStatusChanged') throw new Error('kind');
    expect(decoded.message.origin).toBe('integration:44444444-4444-4444-8444-444444444444');
    const plain = decodeEvent(encoded.type, encodeEvent(statusChange('New', 'Fixed'), 'p').payload);
    if (plain.kind !== 'IssueStatusChanged') throw new Error('kind');
    expect(plain.message.origin).toBeUndefined();
  });

  it('maps ReportSealed with every data field of spec 6.2, null for absent optionals', () => {
    // Every public data field, as the event carries it (the public payload is these without orgId).
    const fields = {
      campaignId: ids.campaignId,
      name: 'Spring',
      siteId: ids.issueId,
      siteName: 'Shop',
      sealState: 'sealed',
      signedCount: 1,
      waivedCount: 1,
      requiredCount: 2,
      gate: 'cleared',
      readinessLevel: 'ReadyWithIssues',
      sealedVersion: 3,
      signedBy: ['Dana'],
      decision: 'approve',
    };
    const sealed = createEvent('ReportSealed', { ...fields, orgId: ids.orgId, occurredAt: toTimestamp(at) });
    expect(subjectOf('ReportSealed', 'p')).toBe('p.campaign.report_sealed');
    const decoded = decodeEvent(encodeEvent(sealed).type, encodeEvent(sealed).payload);
    expect(toPublicEvents(decoded)).toEqual([{ eventType: 'ReportSealed', occurredAt: at, data: fields }]);
    const bare = createEvent('ReportSealed', { campaignId: ids.campaignId, orgId: ids.orgId, siteId: ids.issueId, sealState: 'sealed', decision: 'reject' });
    expect(toPublicEvents(bare)[0]?.data).toMatchObject({ name: null, siteName: null, signedBy: [], signedCount: 0, decision: 'reject' });
  });

  it('maps TesterCompleted with every data field of spec 6.2', () => {
    const done = createEvent('TesterCompleted', {
      campaignId: ids.campaignId,
      orgId: ids.orgId,
      campaignName: 'Spring',
      campaignTesterId: ids.issueId,
      testerName: 'Sam',
      verdict: 'Pass',
      issuesReported: 2,
      occurredAt: toTimestamp(at),
    });
    expect(subjectOf('TesterCompleted')).toBe('preflight.campaign.tester_completed');
    const [env] = envelopesFor('evt-2', decodeEvent('TesterCompleted', encodeEvent(done).payload));
    expect(env).toEqual({
      id: 'evt-2',
      eventType: 'TesterCompleted',
      occurredAt: at.toISOString(),
      data: { campaignId: ids.campaignId, campaignName: 'Spring', campaignTesterId: ids.issueId, testerName: 'Sam', verdict: 'Pass', issuesReported: 2 },
    });
    const noVerdict = createEvent('TesterCompleted', { campaignId: ids.campaignId, orgId: ids.orgId, campaignTesterId: ids.issueId, testerName: 'Sam' });
    expect(toPublicEvents(noVerdict)[0]?.data).toMatchObject({ campaignName: null, verdict: null, issuesReported: 0 });
  });

  it('emits nothing for reserved or internal-only domain events', () => {
    expect(toPublicEvents(createEvent('CampaignCreated', { campaignId: ids.campaignId, orgId: ids.orgId, siteId: ids.orgId, status: 'Draft' }))).toEqual([]);
    expect(toPublicEvents(createEvent('CampaignStatusChanged', { campaignId: ids.campaignId, orgId: ids.orgId, oldStatus: 'Active', status: 'Paused' }))).toEqual([]);
    expect(toPublicEvents(createEvent('IssueAssigned', { ...ids, assigneeName: 'Kim' }))).toEqual([]);
  });

  it('builds the envelope {id, eventType, occurredAt, data} with the domain event id', () => {
    expect(buildEnvelope({ id: 'e1', eventType: 'IssueClosed', occurredAt: at, data: { a: 1 } })).toEqual({ id: 'e1', eventType: 'IssueClosed', occurredAt: '2025-03-01T12:00:00.123Z', data: { a: 1 } });
    const [env] = envelopesFor('evt-1', statusChange('InProgress', 'WontFix'));
    expect(Object.keys(env ?? {})).toEqual(['id', 'eventType', 'occurredAt', 'data']);
    expect(env).toMatchObject({ id: 'evt-1', eventType: 'IssueClosed', occurredAt: at.toISOString() });
  });

  it('has a sample for every emitted event and none for reserved or unknown names', () => {
    for (const name of EMITTED_EVENT_TYPES) {
      const sample = sampleEnvelope(name);
      expect(sample?.eventType).toBe(name);
      expect(sample?.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(sample?.occurredAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
    expect(Object.keys(sampleEnvelope('ReportSealed')?.data ?? {})).toEqual([
      'campaignId', 'name', 'siteId', 'siteName', 'sealState', 'signedCount', 'waivedCount', 'requiredCount', 'gate', 'readinessLevel', 'sealedVersion', 'signedBy', 'decision',
    ]);
    expect(Object.keys(sampleEnvelope('TesterCompleted')?.data ?? {})).toEqual(['campaignId', 'campaignName', 'campaignTesterId', 'testerName', 'verdict', 'issuesReported']);
    // Both are built from a sample domain event through toPublicEvents, like real deliveries.
    expect(sampleEnvelope('ReportSealed')?.data).toMatchObject({ sealState: 'sealed', decision: 'approve', signedBy: ['Dana Product', 'Lee QA'], sealedVersion: 4 });
    expect(sampleEnvelope('TesterCompleted')?.data).toMatchObject({ verdict: 'Pass', issuesReported: 3 });
    expect(Object.keys(sampleEnvelope('RetestCompleted')?.data ?? {})).toEqual(['issueId', 'campaignId', 'title', 'oldStatus', 'newStatus', 'reason']);
    // Every sample (a domain event through toPublicEvents) carries exactly the contract's fields.
    for (const name of EMITTED_EVENT_TYPES) expect(Object.keys(sampleEnvelope(name)?.data ?? {}), name).toEqual([...EVENT_DATA_FIELDS[name]]);
    expect(sampleEnvelope('CampaignCreated')).toBeUndefined();
    expect(sampleEnvelope('Nope')).toBeUndefined();
  });
});
