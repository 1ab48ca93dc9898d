import { JetStreamApiError, type ConsumerConfig, type ConsumerInfo, type JetStreamManager } from '@nats-io/jetstream';

/** Creates the durable consumer or brings its settings up to date: idempotent across replicas. */
export async function ensureConsumer(jsm: JetStreamManager, stream: string, config: Partial<ConsumerConfig> & { durable_name: string }): Promise<void> {
  const existing = await consumerInfo(jsm, stream, config.durable_name);
  if (!existing) {
    try {
      await jsm.consumers.add(stream, config);
      return;
    } catch (err) {
      if (!(await consumerInfo(jsm, stream, config.durable_name))) throw err;
    }
  }
  const current = existing?.config ?? (await consumerInfo(jsm, stream, config.durable_name))?.config;
  const keys = ['ack_wait', 'max_deliver', 'max_ack_pending', 'filter_subject', 'filter_subjects'] as const;
  const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
  if (current && keys.every((k) => config[k] === undefined || same(config[k], current[k]))) return;
  const update: Partial<ConsumerConfig> = {};
  for (const k of keys) if (config[k] !== undefined) Object.assign(update, { [k]: config[k] });
  await jsm.consumers.update(stream, config.durable_name, update);
}

async function consumerInfo(jsm: JetStreamManager, stream: string, durable: string): Promise<ConsumerInfo | undefined> {
  try {
    return await jsm.consumers.info(stream, durable);
  } catch (err) {
    if (err instanceof JetStreamApiError && err.status === 404) return undefined;
    throw err;
  }
}
