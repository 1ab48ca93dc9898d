/**
 * The `origin` a status change synced from a tracker carries through the issue service into
 * IssueStatusChanged: the consumer does not send such a change back to the same connection.
 */
export const originOf = (connectionId: string): string => `integration:${connectionId}`;
