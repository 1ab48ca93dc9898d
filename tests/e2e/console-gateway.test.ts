import { randomUUID } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import type { MemberRole } from '@preflight/http';
import { parseSigningKey, serviceTokens } from '@preflight/service-auth';
import { eventually } from '@preflight/testing';
import { call, freshTenant } from '../support/client.ts';
import { expectProblem } from './problems.ts';

// The gateway's side of the console in the running system: members reach the real services
// through the admin API with the console's token, confined to their organisation (the gateway
// for `:orgId` paths, the services for ids), audited as themselves; the pages come through /console.
const sys = inject('system');
const consoleTokens = serviceTokens(parseSigningKey('console', sys.serviceAuth.keys.console!));
const as = async (orgId: string, role: MemberRole, userId = randomUUID()) => ({
  userId,
  headers: { authorization: await consoleTokens.authorization('gateway', { kind: 'member', orgId, userId, role }) },
});

describe('console members through the gateway', () => {
  it('work in their own organisation only, with what their role allows, and are audited by name', async () => {
    const mine = await freshTenant(sys, {});
    const theirs = await freshTenant(sys, {});
    const member = await as(mine.org.id, 'Member');
    const owner = await as(mine.org.id, 'Owner');

    const campaigns = await call(sys, 'GET', `/admin/v1/organizations/${mine.org.id}/campaigns`, member);
    expect(campaigns.status, campaigns.text).toBe(200);
    expect(campaigns.text).toContain(mine.campaign.id);
    expect(campaigns.text).not.toContain(theirs.campaign.id);
    expectProblem(await call(sys, 'GET', `/admin/v1/organizations/${theirs.org.id}/campaigns`, member), 404);
    expectProblem(await call(sys, 'GET', `/admin/v1/campaigns/${theirs.campaign.id}`, member), 404);

    const issue = { title: 'Checkout button does nothing', severity: 'High', type: 'Bug' };
    const filed = await call(sys, 'POST', `/admin/v1/campaigns/${mine.campaign.id}/issues`, { ...member, body: issue });
    expect(filed.status, filed.text).toBe(201);
    expectProblem(await call(sys, 'POST', `/admin/v1/campaigns/${theirs.campaign.id}/issues`, { ...member, body: issue }), 404);

    const keyBody = { name: 'console-made', scopes: ['read'] };
    expectProblem(await call(sys, 'POST', `/admin/v1/organizations/${mine.org.id}/api-keys`, { ...member, body: keyBody }), 403);
    const key = await call(sys, 'POST', `/admin/v1/organizations/${mine.org.id}/api-keys`, { ...owner, body: keyBody });
    expect(key.status, key.text).toBe(201);
    expect((await call(sys, 'GET', '/api/v1/me', { apiKey: key.body.key })).body.organization.id).toBe(mine.org.id);

    await eventually(async () => {
      const log = await call(sys, 'GET', '/admin/v1/audit-log?limit=200', { token: sys.adminToken });
      const entries = (log.body as Array<{ actor: { kind: string; id: string }; path: string; orgId: string; status: number }>).filter((e) => e.actor.kind === 'member');
      expect(entries).toContainEqual(expect.objectContaining({ actor: { kind: 'member', id: member.userId, name: null }, path: `/admin/v1/campaigns/${mine.campaign.id}/issues`, status: 201, orgId: mine.org.id }));
      expect(entries).toContainEqual(expect.objectContaining({ actor: { kind: 'member', id: owner.userId, name: null }, path: `/admin/v1/organizations/${mine.org.id}/api-keys`, status: 201, orgId: mine.org.id }));
    });
  });

  it('serves the console\'s pages at /console, with the console\'s own headers, and sends / there', async () => {
    const root = await fetch(`${sys.gatewayUrl}/`, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/console/');

    const signIn = await fetch(`${sys.gatewayUrl}/console/sign-in`, { redirect: 'manual' });
    expect(signIn.status).toBe(200);
    expect(signIn.headers.get('content-type')).toMatch(/^text\/html/);
    expect(signIn.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(await signIn.text()).toMatch(/<form[^>]+method="post"/i);
  });
});
