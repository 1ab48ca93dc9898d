import { context, trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { activeTraceparent, contextFromTraceparent, startTelemetry, tracingOn, tracingSettings } from '../src/index.ts';
import { statementName } from '../src/start.ts';

describe('tracingSettings', () => {
  it('is off by default and on with an OTLP endpoint, unless disabled', () => {
    expect(tracingSettings({}).enabled).toBe(false);
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel:4318' })).toMatchObject({ enabled: true, exporter: 'otlp' });
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://otel:4318/v1/traces' }).enabled).toBe(true);
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel:4318', OTEL_SDK_DISABLED: 'true' }).enabled).toBe(false);
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel:4318', OTEL_TRACES_EXPORTER: 'none' }).enabled).toBe(false);
    expect(tracingSettings({ OTEL_TRACES_EXPORTER: 'console' })).toMatchObject({ enabled: true, exporter: 'console' });
  });

  it('starts nothing when off', async () => {
    const t = await startTelemetry('test', { env: {} });
    expect(t.enabled).toBe(false);
    expect(tracingOn()).toBe(false);
  });
});

describe('trace context helpers', () => {
  it('round-trips a traceparent through a context', () => {
    const tp = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    expect(activeTraceparent(contextFromTraceparent(tp))).toBe(tp);
    expect(activeTraceparent(contextFromTraceparent('garbage'))).toBeUndefined();
    expect(activeTraceparent(contextFromTraceparent('00-00000000000000000000000000000000-b7ad6b7169203331-01'))).toBeUndefined();
    // With no SDK registered the active context is always empty.
    expect(context.with(contextFromTraceparent(tp), () => trace.getActiveSpan())).toBeUndefined();
  });

  it('names a statement by its verb and table', () => {
    expect(statementName('insert into outbox (id) values ($1)')).toBe('INSERT outbox');
    expect(statementName('update outbox set a = 1 where id in (select id from outbox)')).toBe('UPDATE outbox');
    expect(statementName('  delete from "inbox" where x')).toBe('DELETE inbox');
    expect(statementName('BEGIN')).toBe('BEGIN');
  });
});
