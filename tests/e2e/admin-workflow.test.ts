import { describe, expect, inject, it } from 'vitest';
import { admin, call, freshTenant } from '../support/client.ts';
import { expectProblem } from './problems.ts';

const sys = inject('system');
const asAdmin = { token: sys.adminToken };

describe('organisations and API keys', () => {
  it('creates keys shown once, lists them without the secret, and revokes them', async () => {
    const org = await admin(sys).createOrg('Keys Inc');
    const created = await call(sys, 'POST', `/admin/v1/organizations/${org.id}/api-keys`, { ...asAdmin, body: { name: 'deploy-bot', scopes: ['read', 'write'] } });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^svc_test_[A-Za-z0-9]{40,}$/);
    expect(created.body).toMatchObject({ name: 'deploy-bot', scopes: ['read', 'write'] });

    const live = await call(sys, 'POST', `/admin/v1/organizations/${org.id}/api-keys`, { ...asAdmin, body: { name: 'prod', scopes: [], environment: 'live' } });
    expect(live.body.key).toMatch(/^svc_live_/);

    const listed = await call(sys, 'GET', `/admin/v1/organizations/${org.id}/api-keys`, asAdmin);
    expect(listed.status).toBe(200);
    expect(listed.text).not.toContain(created.body.key);
    const entry = listed.body.find((k: { id: string }) => k.id === created.body.id);
    expect(Object.keys(entry).sort()).toEqual(['createdAt', 'id', 'lastFour', 'lastUsedAt', 'name', 'prefix', 'revokedAt', 'scopes']);
    expect(entry.lastFour).toBe(created.body.key.slice(-4));
    expect(entry.revokedAt).toBeNull();

    const revoked = await call(sys, 'DELETE', `/admin/v1/organizations/${org.id}/api-keys/${created.body.id}`, asAdmin);
    expect(revoked.status).toBe(204);
    const after = await call(sys, 'GET', `/admin/v1/organizations/${org.id}/api-keys`, asAdmin);
    expect(after.body.find((k: { id: string }) => k.id === created.body.id).revokedAt).not.toBeNull();
  });

  it('validates input and answers unknown organisations with 404', async () => {
    expectProblem(await call(sys, 'POST', '/admin/v1/organizations', { ...asAdmin, body: {} }), 422);
    const org = await admin(sys).createOrg();
    const bad = expectProblem(
      await call(sys, 'POST', `/admin/v1/organizations/${org.id}/api-keys`, { ...asAdmin, body: { name: 'k', scopes: ['admin'] } }),
      422,
    );
    expect(Object.keys(bad.errors)[0]).toMatch(/^scopes/);
    const missing = '00000000-0000-4000-8000-000000000000';
    expectProblem(await call(sys, 'GET', `/admin/v1/organizations/${missing}/api-keys`, asAdmin), 404);
    expectProblem(await call(sys, 'POST', `/admin/v1/organizations/${missing}/sites`, { ...asAdmin, body: { name: 'x' } }), 404);
  });

  it('refuses a missing or wrong admin token with 401', async () => {
    expectProblem(await call(sys, 'GET', '/admin/v1/organizations'), 401);
    expectProblem(await call(sys, 'GET', '/admin/v1/organizations', { token: 'wrong-token-wrong-token' }), 401);
  });
});

describe('campaign lifecycle', () => {
  it('follows the state machine and answers an invalid transition with 409 naming the state', async () => {
    const t = await freshTenant(sys, { r: ['read'] });
    expect(t.campaign.status).toBe('Draft');
    const active = await call(sys, 'POST', `/admin/v1/campaigns/${t.campaign.id}/status`, { ...asAdmin, body: { to: 'Active' } });
    expect(active.status).toBe(200);
    expect(active.body.status).toBe('Active');
    await t.admin.setCampaignStatus(t.campaign.id, 'Paused');
    await t.admin.setCampaignStatus(t.campaign.id, 'Closed', 'Launched');
    const conflict = expectProblem(await call(sys, 'POST', `/admin/v1/campaigns/${t.campaign.id}/status`, { ...asAdmin, body: { to: 'Active' } }), 409);
    expect(conflict.detail).toContain('Closed');
    expectProblem(await call(sys, 'POST', `/admin/v1/campaigns/${t.campaign.id}/status`, { ...asAdmin, body: { to: 'Launched' } }), 422);
    const listed = await call(sys, 'GET', '/api/v1/campaigns', { apiKey: t.keys.r!.key });
    expect(listed.body[0].status).toBe('Closed');
  });
});

describe('issue workflow from the dashboard', () => {
  it('records every field, each status change in history, the assignee and duplicates', async () => {
    const t = await freshTenant(sys, { r: ['read'] });
    const full = {
      title: 'Menu does not open',
      description: 'Tapping the burger icon does nothing',
      stepsToReproduce: '1. Open the home page\n2. Tap the menu',
      expectedBehavior: 'The menu opens',
      actualBehavior: 'Nothing happens',
      severity: 'High',
      type: 'Bug',
      pageUrl: 'https://shop.example.com/',
      pageTitle: 'Home',
      browserName: 'Safari',
      browserVersion: '18.1',
      operatingSystem: 'iOS 18',
      deviceType: 'Mobile',
      screenResolution: '390x844',
      screenshotUrl: 'https://cdn.example.com/shot.png',
      testerEmail: 'tess@example.com',
    };
    const created = await t.admin.createIssue(t.campaign.id, full);
    expect(created.seqNumber).toBe(1);
    const original = await t.admin.createIssue(t.campaign.id, { title: 'Original', severity: 'Low', type: 'Bug' });

    const steps: Array<[string, string?]> = [['Acknowledged'], ['InProgress', 'Picked up'], ['Fixed'], ['RetestRequested'], ['RetestFailed', 'Still broken'], ['Fixed'], ['Closed']];
    for (const [to, reason] of steps) await t.admin.setIssueStatus(created.id, { to, reason });
    const invalid = expectProblem(await call(sys, 'POST', `/admin/v1/issues/${created.id}/status`, { ...asAdmin, body: { to: 'Fixed' } }), 409);
    expect(invalid.detail).toContain('Closed');

    await t.admin.setAssignee(created.id, 'Dana Developer');
    const detail = await call(sys, 'GET', `/api/v1/issues/${created.id}`, { apiKey: t.keys.r!.key });
    expect(detail.body).toMatchObject({ ...full, status: 'Closed', assigneeName: 'Dana Developer' });
    expect(detail.body.history.map((h: { from: string | null; to: string }) => `${h.from}->${h.to}`)).toEqual([
      'null->New', 'New->Acknowledged', 'Acknowledged->InProgress', 'InProgress->Fixed', 'Fixed->RetestRequested',
      'RetestRequested->RetestFailed', 'RetestFailed->Fixed', 'Fixed->Closed',
    ]);
    expect(detail.body.history[2].reason).toBe('Picked up');

    expectProblem(await call(sys, 'POST', `/admin/v1/issues/${original.id}/status`, { ...asAdmin, body: { to: 'Duplicate' } }), 422);
    await t.admin.setIssueStatus(original.id, { to: 'Duplicate', duplicateOfId: created.id });
    const dup = await call(sys, 'GET', `/api/v1/issues/${original.id}`, { apiKey: t.keys.r!.key });
    expect(dup.body).toMatchObject({ status: 'Duplicate', duplicateOfId: created.id, duplicateOfSeqNumber: 1 });

    const unassigned = await t.admin.setAssignee(created.id, null);
    expect(unassigned.assigneeName).toBeNull();
  });
});
