import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { connect, connectionOf, integrationSuite } from './harness.ts';

/** Names the address rules see, without asking a real DNS server. */
const HOSTS: Record<string, string[]> = {
  'hooks.slack.com': ['54.230.10.5'],
  'jira.internal.example': ['10.0.0.5'],
  'ghe.example': ['203.0.113.7', '192.168.1.20'],
};
const h = integrationSuite({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' }, { resolveHost: async (host) => HOSTS[host] ?? [] });

const integrations = (orgId: string) => `/admin/v1/organizations/${orgId}/integrations`;

describe('provider URLs when private targets are not allowed', () => {
  it('refuses a webhook URL or API base URL on a private or loopback address with a 422 naming the field', async () => {
    const orgId = randomUUID();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ kind: 'slack', name: 'Loopback', config: {}, credentials: { webhookUrl: 'http://127.0.0.1:9/services/T1/B1/secretpath1' } }, 'credentials.webhookUrl'],
      [{ kind: 'teams', name: 'Localhost', config: {}, credentials: { webhookUrl: 'https://localhost/workflows/secretpath2' } }, 'credentials.webhookUrl'],
      [{ kind: 'github', name: 'Private GHE', config: { owner: 'acme', repo: 'shop', apiBaseUrl: 'http://10.1.2.3/api/v3' }, credentials: { token: 'ghp_x' } }, 'config.apiBaseUrl'],
      [{ kind: 'github', name: 'Half private', config: { owner: 'acme', repo: 'shop', apiBaseUrl: 'https://ghe.example/api/v3' }, credentials: { token: 'ghp_x' } }, 'config.apiBaseUrl'],
      [{ kind: 'jira', name: 'Internal Jira', config: { baseUrl: 'https://jira.internal.example', projectKey: 'PREF' }, credentials: { email: 'bot@example.com', apiToken: 't' } }, 'config.baseUrl'],
      [{ kind: 'linear', name: 'Metadata', config: { teamId: randomUUID(), apiUrl: 'http://169.254.169.254/graphql' }, credentials: { apiKey: 'lin_api_x' } }, 'config.apiUrl'],
    ];
    for (const [body, field] of cases) {
      const res = await h.call('POST', integrations(orgId), { body });
      expect({ name: body.name, status: res.status, type: res.headers.get('content-type') }).toEqual({ name: body.name, status: 422, type: expect.stringMatching(/^application\/problem\+json/) });
      expect({ name: body.name, fields: Object.keys(res.body.errors) }).toEqual({ name: body.name, fields: [field] });
      expect(JSON.stringify(res.body)).not.toMatch(/secretpath/);
    }
    expect((await h.call('GET', integrations(orgId))).body).toEqual([]);
  });

  it('accepts a public provider URL, and refuses a change to a private one, leaving the connection as it was', async () => {
    const orgId = randomUUID();
    const c = await connect(h, orgId, { kind: 'slack', name: 'Public', config: {}, credentials: { webhookUrl: 'https://hooks.slack.com/services/T0/B0/secretpath3' } });
    const res = await h.call('PATCH', `/admin/v1/integrations/${c.id}`, { body: { name: 'Moved', credentials: { webhookUrl: 'http://192.168.0.10/services/T0/B0/secretpath4' } } });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual(['credentials.webhookUrl']);
    expect(JSON.stringify(res.body)).not.toMatch(/secretpath/);
    expect(await connectionOf(h, orgId, c.id)).toEqual(c);
  });
});
