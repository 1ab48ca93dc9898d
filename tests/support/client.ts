import type { SystemInfo } from './system.ts';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** One HTTP call to the gateway; the body is parsed when the response is JSON of any flavour. */
export async function call<T = any>(
  sys: SystemInfo,
  method: string,
  path: string,
  opts: { token?: string; apiKey?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.apiKey) headers['x-api-key'] = opts.apiKey;
  let body: string | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${sys.gatewayUrl}${path}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = undefined;
  if (text && /json|text\/plain/.test(res.headers.get('content-type') ?? '')) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
  }
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

/** The operator's side: the admin API with the admin token. Throws on any non-2xx. */
export function admin(sys: SystemInfo) {
  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await call(sys, method, path, { token: sys.adminToken, body });
    if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${res.text}`);
    return res.body;
  };
  return {
    createOrg: (name = 'Acme') => ok('POST', '/admin/v1/organizations', { name }),
    createKey: (orgId: string, scopes: string[], name = 'ci-key') =>
      ok('POST', `/admin/v1/organizations/${orgId}/api-keys`, { name, scopes }),
    revokeKey: (orgId: string, keyId: string) => ok('DELETE', `/admin/v1/organizations/${orgId}/api-keys/${keyId}`),
    createSite: (orgId: string, name = 'Shop') => ok('POST', `/admin/v1/organizations/${orgId}/sites`, { name, url: 'https://shop.example.com' }),
    createCampaign: (siteId: string, name = 'Launch') => ok('POST', `/admin/v1/sites/${siteId}/campaigns`, { name }),
    setCampaignStatus: (campaignId: string, to: string, reason?: string) =>
      ok('POST', `/admin/v1/campaigns/${campaignId}/status`, { to, reason }),
    createIssue: (campaignId: string, body: Record<string, unknown>) => ok('POST', `/admin/v1/campaigns/${campaignId}/issues`, body),
    setIssueStatus: (issueId: string, body: Record<string, unknown>) => ok('POST', `/admin/v1/issues/${issueId}/status`, body),
    setAssignee: (issueId: string, assigneeName: string | null) => ok('POST', `/admin/v1/issues/${issueId}/assignee`, { assigneeName }),
  };
}

/**
 * A fresh organisation with a site, a campaign and one key per scope set asked for — the
 * starting point of almost every end-to-end test, so tests never share data.
 */
export async function freshTenant(sys: SystemInfo, keyScopes: Record<string, string[]> = { all: ['read', 'write', 'webhooks'] }) {
  const a = admin(sys);
  const org = await a.createOrg(`Org ${Math.random().toString(36).slice(2, 8)}`);
  const keys: Record<string, { id: string; key: string; name: string }> = {};
  for (const [label, scopes] of Object.entries(keyScopes)) keys[label] = await a.createKey(org.id, scopes, `${label}-key`);
  const site = await a.createSite(org.id);
  const campaign = await a.createCampaign(site.id);
  return { org, site, campaign, keys, admin: a };
}
