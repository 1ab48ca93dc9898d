import { EMITTED_EVENT_TYPES, RESERVED_EVENT_TYPES } from '@preflight/contract';

/**
 * An endpoint's event filter (spec 6, 6.3): names of emitted or reserved events; an empty
 * filter means every event. Stored and returned as [] rather than null.
 */
const SELECTABLE: readonly string[] = [...EMITTED_EVENT_TYPES, ...RESERVED_EVENT_TYPES];

export const isSelectableEventName = (name: string): boolean => SELECTABLE.includes(name);

/** The message for a name outside the catalogue; suggests the right spelling when only the case is off. */
export function unknownEventMessage(name: string): string {
  const near = SELECTABLE.find((n) => n.toLowerCase() === name.toLowerCase());
  if (near) return `'${name}' is not an event name; did you mean '${near}'?`;
  return `'${name}' is not an event name. Emitted: ${EMITTED_EVENT_TYPES.join(', ')}. Reserved: ${RESERVED_EVENT_TYPES.join(', ')}.`;
}

/** True when an endpoint with this filter receives `eventType`. */
export function subscribesTo(filter: readonly string[], eventType: string): boolean {
  return filter.length === 0 || filter.includes(eventType);
}
