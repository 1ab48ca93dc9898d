import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { TEST_NATS_URL } from './isolation.ts';

/** Deletes the JetStream streams a test created (missing ones are fine). */
export async function deleteStreams(names: string[], url = TEST_NATS_URL): Promise<void> {
  const nc = await connect({ servers: url });
  try {
    const jsm = await jetstreamManager(nc);
    for (const name of names) await jsm.streams.delete(name).catch(() => undefined);
  } finally {
    await nc.close();
  }
}
