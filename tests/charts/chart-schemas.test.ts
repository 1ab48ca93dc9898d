/**
 * The generated values schemas (scripts/chart-schemas.ts), checked without Helm: the committed
 * files are what the generator writes now, and each service's `config` keys accept what its
 * ConfigMap can carry (strings, numbers and booleans as the code reads them, "", null, templates)
 * and refuse what the service would stop on. tests/charts/charts.test.ts runs Helm on them.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { chartSchemas, serviceCharts } from '../../scripts/chart-schemas.ts';
import { intRangePattern } from '../../scripts/chart-schemas/env-values.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const committed = (service: string) => JSON.parse(readFileSync(join(root, `charts/${service}/values.schema.json`), 'utf8')) as { properties: { config: { properties: Record<string, unknown> } } };

/** A validator of one chart's `config` map alone. */
function configOf(service: string) {
  const validate = new Ajv({ strict: false, allErrors: true }).compile(committed(service).properties.config);
  return (config: Record<string, unknown>) => validate(config);
}

describe('generated values schemas', () => {
  it('are committed as scripts/chart-schemas.ts writes them (else: npm run charts:schemas)', async () => {
    const generated = await chartSchemas();
    expect([...generated.keys()].sort()).toEqual(serviceCharts().map((s) => `charts/${s}/values.schema.json`));
    expect(generated.size).toBeGreaterThanOrEqual(5);
    for (const [path, text] of generated) expect(readFileSync(join(root, path), 'utf8'), `${path} is stale: run npm run charts:schemas`).toBe(text);
  });

  it('type every variable of the service config shape except the credentials', () => {
    expect(Object.keys(committed('delivery').properties.config.properties)).toContain('DELIVERY_RETRY_SCHEDULE_MS');
    expect(Object.keys(committed('gateway').properties.config.properties)).not.toContain('ADMIN_TOKEN');
  });

  it.each([
    [{ DB_POOL_MAX: '10', LOG_LEVEL: 'info', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false', DB_SCHEMA: 'delivery' }],
    [{ DB_POOL_MAX: 100, WEBHOOK_ALLOW_PRIVATE_TARGETS: true, DELIVERY_LOG_RETENTION_DAYS: 0 }],
    // left out of the ConfigMap: the code default applies
    [{ DB_POOL_MAX: '', LOG_LEVEL: null, DB_SCHEMA: '' }],
    // rendered by `tpl`
    [{ WEBHOOK_URL: 'http://{{ .Release.Name }}-webhook:8083', DB_POOL_MAX: '{{ .Values.pool }}' }],
    // variables the config shape does not list stay free (NODE_OPTIONS and the like)
    [{ NODE_OPTIONS: '--max-old-space-size=512', TZ: 'UTC', SOMETHING: 1 }],
    [{ DELIVERY_RETRY_SCHEDULE_MS: '1000,5000,30000', EVENTS_STREAM_REPLICAS: '3' }],
  ])('delivery config accepts %j', (config) => {
    expect(configOf('delivery')(config)).toBe(true);
  });

  it.each([
    ['delivery', { DB_POOL_MAX: '1' }],
    ['delivery', { DB_POOL_MAX: 101 }],
    ['delivery', { DB_POOL_MAX: 'ten' }],
    ['delivery', { DB_POOL_MAX: '010' }],
    ['delivery', { DB_POOL_MAX: 2.5 }],
    ['delivery', { DELIVERY_BREAKER_ERROR_PERCENT: '101' }],
    ['delivery', { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'maybe' }],
    ['gateway', { LOG_LEVEL: 'verbose' }],
    ['gateway', { API_KEY_ENVIRONMENT: 'prod' }],
    ['gateway', { RATE_LIMIT_MAX: '0' }],
    ['issue', { DB_SCHEMA: 'Issue-Schema' }],
    ['campaign', { EVENTS_SUBJECT_PREFIX: 'preflight.>' }],
    ['campaign', { EVENTS_STREAM_REPLICAS: 6 }],
    // credentials, as before
    ['webhook', { WEBHOOK_SECRET_KEYS: 'k1:AAAA' }],
    ['gateway', { ADMIN_TOKEN: 'x'.repeat(20) }],
  ])('%s config refuses %j', (service, config) => {
    expect(configOf(service)(config)).toBe(false);
  });
});

describe('intRangePattern', () => {
  const matcher = (min: number, max?: number) => new RegExp(`^(?:${intRangePattern(min, max)})$`);

  it.each([
    [0, 9],
    [0, 65535],
    [1, 100],
    [2, 100],
    [10, 60_000],
    [100, 120_000],
    [1_000, 86_400_000],
    [37, 4_210],
  ])('matches exactly %i..%i', (min, max) => {
    // every number up to 200,000 and the neighbours of each power of ten and of the bounds
    const probes = new Set<number>([min - 1, min, min + 1, max - 1, max, max + 1, max * 10]);
    for (let n = 0; n <= Math.min(max + 10, 200_000); n++) probes.add(n);
    for (let p = 1; p <= 1e9; p *= 10) [p - 1, p, p + 1].forEach((n) => probes.add(n));
    const re = matcher(min, max);
    const wrong = [...probes].filter((n) => n >= 0 && re.test(String(n)) !== (n >= min && n <= max));
    expect(wrong).toEqual([]);
  });

  it('without a maximum, takes every larger number', () => {
    for (const n of [0, 1, 9, 10, 99, 100, 12_345, 9_007_199_254_740_991]) expect(matcher(1).test(String(n)), String(n)).toBe(n >= 1);
    for (const n of [0, 999, 1_000, 1_001, 9_999, 10_000, 123_456_789]) expect(matcher(1_000).test(String(n)), String(n)).toBe(n >= 1_000);
  });

  it('takes no leading zeros, signs or exponents', () => {
    const re = matcher(0, 1000);
    for (const s of ['01', '+1', '-1', '1e3', ' 1', '1.0', '']) expect(re.test(s), s).toBe(false);
  });
});
