import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { InboundChange, InboundHooks } from '../provider.ts';
import { jiraStatusMapping, type JiraConfig } from './schema.ts';

/**
 * Jira's admin webhooks with a secret sign the raw body: `X-Hub-Signature: sha256=<hex HMAC-SHA256>`.
 * Only `jira:issue_updated` events whose changelog moves the status of an issue of the
 * connection's project are state changes.
 */

const SIGNATURE = /^sha256=([0-9a-f]{64})$/i;

function headerOf(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name] ?? headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

const issueUpdated = z.object({
  webhookEvent: z.literal('jira:issue_updated'),
  issue: z.object({
    id: z.union([z.string(), z.number()]).transform(String),
    key: z.string(),
    fields: z.object({ project: z.object({ key: z.string() }).optional() }).optional(),
  }),
  changelog: z.object({
    items: z.array(z.object({ field: z.string(), toString: z.string().nullable().optional() })),
  }),
});

export const jiraHooks: InboundHooks<JiraConfig> = {
  verify(headers, rawBody, secret) {
    const match = SIGNATURE.exec(headerOf(headers, 'x-hub-signature') ?? '');
    if (!match?.[1]) return false;
    const expected = createHmac('sha256', secret).update(rawBody).digest();
    return timingSafeEqual(Buffer.from(match[1], 'hex'), expected);
  },

  parse(_headers, body, config): InboundChange | null {
    const event = issueUpdated.safeParse(body);
    if (!event.success) return null;
    const { issue, changelog } = event.data;
    const project = issue.fields?.project?.key ?? issue.key.slice(0, issue.key.lastIndexOf('-'));
    if (project !== config.projectKey) return null;
    // The last status item is where the issue ended up.
    const name = changelog.items.filter((item) => item.field === 'status').at(-1)?.toString;
    if (!name) return null;
    return {
      externalId: issue.id,
      externalKey: issue.key,
      state: name,
      change: { kind: 'mapped', name, to: jiraStatusMapping(config).statusOf({ name }) },
    };
  },
};
