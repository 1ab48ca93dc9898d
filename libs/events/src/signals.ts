/**
 * Signals: plain (core) NATS messages that tell other services' caches something changed.
 * Unlike domain events they are not stored, replayed or delivered to webhooks, so their
 * subjects sit outside the event stream's `<prefix>.>`: `<prefix>_signals.<owner>.<what>`.
 * A lost signal costs only staleness up to the receiver's cache TTL.
 */

/**
 * The webhook service's endpoints of an organisation changed (created, deleted, re-enabled,
 * secret rotated). Payload: `EndpointsChanged` as JSON. The delivery service drops its cached
 * endpoint list, and for `reset` also its breaker state for the endpoint.
 */
export const endpointsChangedSubject = (prefix: string): string => `${prefix}_signals.webhook.endpoints_changed`;

export interface EndpointsChanged {
  orgId: string;
  /** The endpoint that changed, when one did. */
  endpointId?: string;
  /** The operator re-enabled it: every replica forgets what its breaker learnt. */
  reset?: boolean;
}

export const encodeEndpointsChanged = (change: EndpointsChanged): string => JSON.stringify(change);

/** Also reads the bare organisation id that webhook services before 2026-11-25 sent; undefined for anything else. */
export function decodeEndpointsChanged(payload: string): EndpointsChanged | undefined {
  const text = payload.trim();
  if (!text.startsWith('{')) return text.length > 0 ? { orgId: text } : undefined;
  try {
    const v = JSON.parse(text) as Partial<EndpointsChanged>;
    if (typeof v.orgId !== 'string') return undefined;
    return {
      orgId: v.orgId,
      ...(typeof v.endpointId === 'string' ? { endpointId: v.endpointId } : {}),
      ...(v.reset === true ? { reset: true } : {}),
    };
  } catch {
    return undefined;
  }
}
