import { LinearWebhookClient } from '@linear/sdk/webhooks';
import { z } from 'zod';
import type { InboundChange, InboundHooks } from '../provider.ts';
import { linearStatusMapping, type LinearConfig } from './schema.ts';

/**
 * Linear signs the raw body (`Linear-Signature`: hex HMAC-SHA256) and puts the send time in the
 * signed body (`webhookTimestamp`, ms); the SDK's verifier checks both, refusing deliveries more
 * than a minute old. Only issue updates that changed the state, in the connection's team, count.
 */

function headerOf(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name] ?? headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

const stateChange = z.object({
  type: z.literal('Issue'),
  action: z.literal('update'),
  data: z.object({
    id: z.string(),
    identifier: z.string(),
    teamId: z.string(),
    state: z.object({ name: z.string(), type: z.string() }),
  }),
  updatedFrom: z.object({ stateId: z.string() }),
});

export const linearHooks: InboundHooks<LinearConfig> = {
  verify(headers, rawBody, secret) {
    const signature = headerOf(headers, 'linear-signature');
    if (!signature) return false;
    try {
      return new LinearWebhookClient(secret).verify(rawBody, signature);
    } catch {
      // The SDK throws for a wrong signature, a stale or missing timestamp, and a body that is not JSON.
      return false;
    }
  },

  parse(_headers, body, config): InboundChange | null {
    const event = stateChange.safeParse(body);
    if (!event.success || event.data.data.teamId !== config.teamId) return null;
    const { id, identifier, state } = event.data.data;
    return {
      externalId: id,
      externalKey: identifier,
      state: state.name,
      change: { kind: 'mapped', name: state.name, to: linearStatusMapping(config).statusOf({ name: state.name, category: state.type }) },
    };
  },
};
