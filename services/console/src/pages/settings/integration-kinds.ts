import type { IntegrationKind } from '../../gateway-client/api-types.ts';

/**
 * What each kind of connection asks for (admin-api-v1.md, "Integrations"): one table drives the
 * connect forms and turns their fields back into `config` and `credentials`. Field names are the
 * paths the integration service's 422 `errors` map uses (`config.owner`), so its messages land
 * next to the right input.
 */
export interface KindField {
  name: string;
  label: string;
  /** `list`: comma-separated; `map`: one `name = Status` per line. */
  type: 'text' | 'url' | 'email' | 'password' | 'list' | 'map';
  required?: boolean;
  hint?: string;
}

export interface KindSpec {
  kind: IntegrationKind;
  label: string;
  chat: boolean;
  fields: KindField[];
}

const webhookUrl = (hint: string): KindField => ({ name: 'credentials.webhookUrl', label: 'Webhook URL', type: 'url', required: true, hint });

export const KINDS: KindSpec[] = [
  { kind: 'slack', label: 'Slack', chat: true, fields: [webhookUrl('A Slack Incoming Webhook URL.')] },
  { kind: 'teams', label: 'Microsoft Teams', chat: true, fields: [webhookUrl('A Teams Workflows or incoming webhook URL.')] },
  {
    kind: 'github',
    label: 'GitHub',
    chat: false,
    fields: [
      { name: 'config.owner', label: 'Owner', type: 'text', required: true, hint: 'The user or organisation owning the repository.' },
      { name: 'config.repo', label: 'Repository', type: 'text', required: true },
      { name: 'config.labels', label: 'Labels', type: 'list', hint: 'Comma-separated, added to every issue created (optional).' },
      { name: 'config.apiBaseUrl', label: 'API base URL', type: 'url', hint: 'Only for GitHub Enterprise Server, e.g. https://github.example.com/api/v3.' },
      { name: 'credentials.token', label: 'Token', type: 'password', required: true, hint: 'A token allowed to create and edit issues of the repository.' },
    ],
  },
  {
    kind: 'jira',
    label: 'Jira',
    chat: false,
    fields: [
      { name: 'config.baseUrl', label: 'Site URL', type: 'url', required: true, hint: 'https://your-site.atlassian.net' },
      { name: 'config.projectKey', label: 'Project key', type: 'text', required: true },
      { name: 'config.issueType', label: 'Issue type', type: 'text', hint: 'Bug unless named (optional).' },
      { name: 'config.statusMap', label: 'Status map', type: 'map', hint: 'One per line: Jira status = Preflight status, e.g. “Done = Fixed” (optional).' },
      { name: 'credentials.email', label: 'Account e-mail', type: 'email', required: true },
      { name: 'credentials.apiToken', label: 'API token', type: 'password', required: true },
    ],
  },
  {
    kind: 'linear',
    label: 'Linear',
    chat: false,
    fields: [
      { name: 'config.teamId', label: 'Team id', type: 'text', required: true, hint: "The team's UUID." },
      { name: 'config.apiUrl', label: 'API URL', type: 'url', hint: 'https://api.linear.app/graphql unless named (optional).' },
      { name: 'config.stateMap', label: 'State map', type: 'map', hint: 'One per line: Linear state = Preflight status (optional).' },
      { name: 'credentials.apiKey', label: 'API key', type: 'password', required: true },
      { name: 'credentials.webhookSecret', label: 'Webhook signing secret', type: 'password', hint: 'Only when the webhook was created on Linear’s settings page (optional).' },
    ],
  },
];

export const kindSpec = (kind: string): KindSpec | undefined => KINDS.find((k) => k.kind === kind);

/** `a = B` lines into `{a: 'B'}`; a line without `=` is kept whole so the service's message names it. */
function parseMap(text: string): Record<string, string> {
  const map: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    if (!line.trim()) continue;
    const at = line.lastIndexOf('=');
    if (at < 0) map[line.trim()] = '';
    else map[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return map;
}

/** The form's fields into `{config, credentials}`; empty optional fields are left out. */
export function kindSettings(spec: KindSpec, value: (name: string) => string): { config: Record<string, unknown>; credentials: Record<string, unknown> } {
  const out = { config: {} as Record<string, unknown>, credentials: {} as Record<string, unknown> };
  for (const field of spec.fields) {
    const raw = value(field.name).trim();
    if (!raw && !field.required) continue;
    const [part, key] = field.name.split('.') as ['config' | 'credentials', string];
    out[part][key] =
      field.type === 'list'
        ? raw
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean)
        : field.type === 'map'
          ? parseMap(raw)
          : raw;
  }
  return out;
}

/** A config value as the connection's page shows it. */
export function configText(value: unknown): string {
  if (Array.isArray(value)) return value.join(', ');
  if (value && typeof value === 'object') return Object.entries(value).map(([k, v]) => `${k} = ${String(v)}`).join('; ');
  return String(value ?? '');
}
