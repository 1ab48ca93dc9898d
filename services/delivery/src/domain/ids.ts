import { v7 } from 'uuid';

/**
 * Ids of deliveries and attempts: UUIDv7 (time-ordered), so new rows land at the right edge
 * of their primary-key indexes instead of on random pages. Their first 48 bits are a
 * millisecond timestamp, which is no secret here: the rows carry their times anyway.
 */
export const newDeliveryId = (): string => v7();
export const newAttemptId = (): string => v7();
/** The envelope id of a test send: a fresh event that exists only as its sample envelope. */
export const newTestEventId = (): string => v7();
