/**
 * The Helm charts, checked offline: dependency build, `helm lint --strict`, `helm template` of
 * every chart with its defaults and with deploy/values-*.yaml, every rendered object validated
 * against the Kubernetes schemas (kubernetes-models; prometheus-operator models for the CRDs),
 * and the policies the charts promise (probes, resources, hardening, PDBs, secrets only by
 * reference, NetworkPolicy peers, alerts with runbooks, only known metric names).
 *
 * Run alone with `npm run check:charts`. Helm comes from an npm package (scripts/helm.mjs).
 */
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Job } from 'kubernetes-models/batch/v1';
import { ConfigMap, Pod, Service, ServiceAccount } from 'kubernetes-models/v1';
import { Ingress, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { PrometheusRule, ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import { natsAuthConfigShape } from '../../libs/bus/src/events-config.ts';
import { deliveryConfigShape } from '../../services/delivery/src/config.ts';
import { integrationConfigShape } from '../../services/integration/src/config.ts';

const run = promisify(execFile);
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SERVICES = ['gateway', 'campaign', 'issue', 'webhook', 'delivery', 'integration', 'console'] as const;
const INSTALLABLE = [...SERVICES, 'preflight'] as const;
const SECRET_VARS = ['DATABASE_URL', 'REDIS_URL', 'ADMIN_TOKEN', 'NATS_URL', 'WEBHOOK_SECRET_KEYS', 'INTEGRATION_SECRET_KEYS', 'SERVICE_AUTH_KEY', 'SERVICE_AUTH_PUBLIC_KEYS'];
/** The services on the event stream (libs/bus), and the stream settings' code defaults (libs/bus/src/events-config.ts). */
const EVENT_SERVICES = ['campaign', 'issue', 'delivery', 'integration'] as const;
const EVENTS_DEFAULTS = { EVENTS_STREAM: 'PREFLIGHT_EVENTS', EVENTS_SUBJECT_PREFIX: 'preflight', EVENTS_STREAM_REPLICAS: '1', EVENTS_STREAM_MAX_AGE_HOURS: '168' };
/** Where the delivery and integration pods must never connect (cluster, private, link-local/metadata, CGNAT, loopback). */
const NON_PUBLIC_V4 = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16', '100.64.0.0/10', '127.0.0.0/8'];

type K8sObject = { apiVersion: string; kind: string; metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: any; data?: Record<string, string> };

interface Validator {
  validate(): void;
}
const MODELS: Record<string, new (data: never) => Validator> = {
  'apps/v1/Deployment': Deployment as never,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler as never,
  'batch/v1/Job': Job as never,
  'v1/ConfigMap': ConfigMap as never,
  'v1/Pod': Pod as never,
  'v1/Service': Service as never,
  'v1/ServiceAccount': ServiceAccount as never,
  'networking.k8s.io/v1/Ingress': Ingress as never,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy as never,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget as never,
  'monitoring.coreos.com/v1/PrometheusRule': PrometheusRule as never,
  'monitoring.coreos.com/v1/ServiceMonitor': ServiceMonitor as never,
};

let helm = '';
let work = '';
const rendered = new Map<string, K8sObject[]>();
const production = parse(readFileSync(join(root, 'deploy/values-production.yaml'), 'utf8')) as Record<string, unknown>;

async function helmRun(args: string[]): Promise<string> {
  try {
    const { stdout } = await run(helm, args, { cwd: work, maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  } catch (err) {
    const e = err as { stderr?: string; stdout?: string; message: string };
    throw new Error(`helm ${args.join(' ')} failed:\n${e.stderr ?? ''}${e.stdout ?? ''}`, { cause: err });
  }
}

/**
 * `helm template` as on a cluster with the Prometheus Operator CRDs (`--api-versions`), so the
 * ServiceMonitors and PrometheusRules render; `bare: true` renders as on a cluster without them.
 * The release is named `pf`: resource names come from global.instance (`preflight`), not from it.
 */
async function template(chart: string, args: string[] = [], opts: { bare?: boolean } = {}): Promise<K8sObject[]> {
  const caps = opts.bare ? [] : ['--api-versions', 'monitoring.coreos.com/v1'];
  const out = await helmRun(['template', 'pf', `charts/${chart}`, '--namespace', 'preflight', ...caps, ...args]);
  return parseAllDocuments(out)
    .map((d) => d.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null);
}

/** The production values of one service, as that chart alone would take them. */
function productionSlice(service: string): string {
  const file = join(work, `values-production-${service}.yaml`);
  const own = (production[service] ?? {}) as Record<string, unknown>;
  writeFileSync(file, JSON.stringify({ ...own, global: production.global }));
  return file;
}

function all(): Array<[string, K8sObject]> {
  return [...rendered].flatMap(([name, objs]) => objs.map((o) => [name, o] as [string, K8sObject]));
}
function ofKind(name: string, kind: string): K8sObject[] {
  return (rendered.get(name) ?? []).filter((o) => o.kind === kind);
}

/** Metric names in PromQL: identifiers directly followed by a selector `{`, recording rules (with ':') aside. */
function metricNames(expr: string): string[] {
  return [...expr.matchAll(/([a-zA-Z_][a-zA-Z0-9_:]*)\{/g)].map((m) => m[1]!).filter((n) => !n.includes(':'));
}

function knownMetrics(): Set<string> {
  const list = JSON.parse(readFileSync(join(root, 'charts/metrics-used.json'), 'utf8'));
  return new Set<string>([...Object.values(list.exported as Record<string, string[]>).flat(), ...Object.values(list.external as Record<string, string[]>).flat()]);
}

function githubAnchors(markdown: string): Set<string> {
  return new Set(
    markdown
      .split('\n')
      .filter((l) => /^#{1,6} /.test(l))
      .map((l) =>
        l
          .replace(/^#+ /, '')
          .trim()
          .toLowerCase()
          .replace(/[^\p{L}\p{N}\s_-]/gu, '')
          .replace(/\s/g, '-'),
      ),
  );
}

beforeAll(async () => {
  helm = execFileSync(process.execPath, [join(root, 'scripts/helm.mjs'), '--path'], { encoding: 'utf8' }).trim();
  // Work on a copy: dependency build writes charts/*/charts/*.tgz and must not race other runs.
  work = mkdtempSync(join(tmpdir(), 'preflight-charts-'));
  cpSync(join(root, 'charts'), join(work, 'charts'), { recursive: true, filter: (src) => !src.endsWith('.tgz') });
  for (const chart of [...SERVICES, 'preflight']) await helmRun(['dependency', 'build', `charts/${chart}`]);

  const prodFile = join(root, 'deploy/values-production.yaml');
  const localFile = join(root, 'deploy/values-local.yaml');
  const jobs: Array<[string, Promise<K8sObject[]>]> = [];
  for (const s of SERVICES) {
    jobs.push([`${s}:default`, template(s)]);
    jobs.push([`${s}:production`, template(s, ['-f', productionSlice(s)])]);
  }
  jobs.push(['preflight:default', template('preflight')]);
  jobs.push(['preflight:production', template('preflight', ['-f', prodFile])]);
  jobs.push(['preflight:local', template('preflight', ['-f', localFile])]);
  for (const [name, job] of jobs) rendered.set(name, await job);
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('helm lint --strict', () => {
  it('passes for every chart with its defaults', async () => {
    const out = await helmRun(['lint', '--strict', ...['preflight-lib', ...INSTALLABLE].map((c) => `charts/${c}`)]);
    expect(out).toContain(`${INSTALLABLE.length + 1} chart(s) linted, 0 chart(s) failed`);
  });

  it('passes for the umbrella with the production and local values', async () => {
    for (const f of ['production', 'local']) {
      const out = await helmRun(['lint', '--strict', 'charts/preflight', '-f', join(root, `deploy/values-${f}.yaml`)]);
      expect(out).toContain('0 chart(s) failed');
    }
  });

  it('passes for each service chart with its slice of the production values', async () => {
    for (const s of SERVICES) {
      const out = await helmRun(['lint', '--strict', `charts/${s}`, '-f', productionSlice(s)]);
      expect(out).toContain('0 chart(s) failed');
    }
  });
});

describe('rendered manifests', () => {
  it('render every installable chart with defaults and the example values', () => {
    expect([...rendered.keys()].sort()).toEqual(
      [...SERVICES.flatMap((s) => [`${s}:default`, `${s}:production`]), 'preflight:default', 'preflight:local', 'preflight:production'].sort(),
    );
    for (const [name, objs] of rendered) expect(objs.length, name).toBeGreaterThan(5);
  });

  it('are valid against the Kubernetes (and prometheus-operator) schemas', () => {
    const errors: string[] = [];
    for (const [name, obj] of all()) {
      const key = `${obj.apiVersion}/${obj.kind}`;
      const Model = MODELS[key];
      if (!Model) {
        errors.push(`${name}: no schema for ${key} (add its model to MODELS)`);
        continue;
      }
      try {
        new Model(obj as never).validate();
      } catch (err) {
        errors.push(`${name}: ${key} ${obj.metadata.name}: ${(err as Error).message}`);
      }
    }
    expect(errors).toEqual([]);
  });

  it('have unique kind/name pairs per release', () => {
    for (const [name, objs] of rendered) {
      const ids = objs.map((o) => `${o.kind}/${o.metadata.name}`);
      expect(new Set(ids).size, name).toBe(ids.length);
    }
  });
});

describe('policy', () => {
  it('every Deployment has probes, resources and a hardened security context', () => {
    for (const [name, obj] of all().filter(([, o]) => o.kind === 'Deployment')) {
      const pod = obj.spec.template.spec;
      const where = `${name} ${obj.metadata.name}`;
      expect(pod.securityContext.runAsNonRoot, where).toBe(true);
      expect(pod.securityContext.seccompProfile?.type, where).toBe('RuntimeDefault');
      expect(pod.topologySpreadConstraints ?? (name === 'preflight:local' ? [] : undefined), where).toBeDefined();
      expect(obj.spec.template.metadata.annotations['checksum/config'], where).toMatch(/^[a-f0-9]{64}$/);
      expect(pod.volumes.some((v: { name: string; emptyDir?: object }) => v.name === 'tmp' && v.emptyDir), where).toBe(true);
      for (const c of pod.containers) {
        expect(c.startupProbe?.httpGet?.path, where).toBe('/healthz');
        expect(c.livenessProbe?.httpGet?.path, where).toBe('/healthz');
        expect(c.readinessProbe?.httpGet?.path, where).toBe('/readyz');
        expectHardenedContainer(c, where);
        expect(c.volumeMounts.some((m: { mountPath: string }) => m.mountPath === '/tmp'), where).toBe(true);
      }
    }
  });

  it('every Job (the migration and stream hooks) and test Pod has resources and a hardened security context', () => {
    const jobs = all().filter(([, o]) => o.kind === 'Job');
    expect(jobs.length).toBeGreaterThan(0);
    for (const [name, obj] of jobs) {
      const pod = obj.spec.template.spec;
      const where = `${name} ${obj.metadata.name}`;
      expect(pod.securityContext.runAsNonRoot, where).toBe(true);
      expect(pod.securityContext.seccompProfile?.type, where).toBe('RuntimeDefault');
      expect(obj.metadata.annotations?.['helm.sh/hook'], where).toBe('pre-install,pre-upgrade');
      expect(obj.metadata.annotations?.['helm.sh/hook-delete-policy'], where).toContain('before-hook-creation');
      for (const c of pod.containers) {
        expectHardenedContainer(c, where);
        if (obj.metadata.name.endsWith('-migrate')) expect(c.args, where).toEqual(['migrate']);
        else expect(obj.metadata.name, where).toBe('preflight-events-stream');
      }
    }
    const pods = all().filter(([, o]) => o.kind === 'Pod');
    expect(pods.length).toBeGreaterThan(0);
    for (const [name, obj] of pods) {
      const where = `${name} ${obj.metadata.name}`;
      expect(obj.spec.securityContext.runAsNonRoot, where).toBe(true);
      expect(obj.spec.securityContext.seccompProfile?.type, where).toBe('RuntimeDefault');
      for (const c of obj.spec.containers) expectHardenedContainer(c, where);
    }
  });

  it('every service has a PodDisruptionBudget selecting its Deployment, and the release a Service per Deployment', () => {
    for (const [name, objs] of rendered) {
      for (const d of objs.filter((o) => o.kind === 'Deployment')) {
        const selector = d.spec.selector.matchLabels;
        const pdb = objs.find((o) => o.kind === 'PodDisruptionBudget' && JSON.stringify(o.spec.selector.matchLabels) === JSON.stringify(selector));
        expect(pdb, `${name}: PDB for ${d.metadata.name}`).toBeDefined();
        const svc = objs.find((o) => o.kind === 'Service' && JSON.stringify(o.spec.selector) === JSON.stringify(selector));
        expect(svc, `${name}: Service for ${d.metadata.name}`).toBeDefined();
      }
    }
    // every service runs in the umbrella by default
    for (const r of ['preflight:default', 'preflight:production', 'preflight:local']) {
      expect(ofKind(r, 'Deployment').map((d) => d.metadata.name).sort(), r).toEqual(['preflight-campaign', 'preflight-console', 'preflight-delivery', 'preflight-gateway', 'preflight-integration', 'preflight-issue', 'preflight-webhook']);
    }
  });

  it('credentials only arrive as secretKeyRefs, never in a ConfigMap or a plain env value', () => {
    for (const [name, obj] of all()) {
      if (obj.kind === 'ConfigMap') for (const k of SECRET_VARS) expect(obj.data?.[k], `${name} ${obj.metadata.name} ${k}`).toBeUndefined();
      if (obj.kind !== 'Deployment' && obj.kind !== 'Job') continue;
      for (const c of obj.spec.template.spec.containers) {
        for (const e of c.env ?? []) if (SECRET_VARS.includes(e.name)) expect(e.valueFrom?.secretKeyRef?.key, `${name} ${e.name}`).toBeTruthy();
      }
    }
    const gw = ofKind('gateway:default', 'Deployment')[0]!.spec.template.spec.containers[0];
    const refs = gw.env.filter((e: { valueFrom?: object }) => e.valueFrom).map((e: { name: string }) => e.name).sort();
    expect(refs).toEqual(['ADMIN_TOKEN', 'DATABASE_URL', 'REDIS_URL', 'SERVICE_AUTH_KEY', 'SERVICE_AUTH_PUBLIC_KEYS']);
  });

  it('each service signs with its own key from the Secret, and every service trusts the shared public ring', () => {
    for (const r of ['preflight:default', 'preflight:production']) {
      for (const s of ['gateway', 'campaign', 'issue', 'webhook', 'delivery', 'integration']) {
        const env = ofKind(r, 'Deployment').find((o) => o.metadata.name === `preflight-${s}`)!.spec.template.spec.containers[0].env as Array<{ name: string; valueFrom?: { secretKeyRef?: object } }>;
        const ref = (name: string) => env.find((e) => e.name === name)?.valueFrom?.secretKeyRef;
        expect(ref('SERVICE_AUTH_KEY'), `${r} ${s}`).toEqual({ name: 'preflight-secrets', key: `service-auth-${s}` });
        // The gateway's port is the public one; it checks with the ring the console's tokens acting for members.
        expect(ref('SERVICE_AUTH_PUBLIC_KEYS'), `${r} ${s}`).toEqual({ name: 'preflight-secrets', key: 'service-auth-public-keys' });
      }
    }
  });

  it('the webhook key ring comes from the Secret, and private targets stay refused outside local', () => {
    // the server pods only: the migration Job's one credential is DATABASE_URL (migration-job.test.ts)
    const env = (r: string, kind: string, svc: string) => ofKind(r, kind).find((o) => o.metadata.name.startsWith(`preflight-${svc}`))!.spec.template.spec.containers[0].env as Array<{ name: string; valueFrom?: { secretKeyRef?: object } }>;
    for (const r of ['webhook:default', 'webhook:production', 'preflight:production']) {
      expect(env(r, 'Deployment', 'webhook').find((e) => e.name === 'WEBHOOK_SECRET_KEYS')?.valueFrom?.secretKeyRef, r).toEqual({ name: 'preflight-secrets', key: 'webhook-secret-keys' });
      expect(env(r, 'Job', 'webhook').map((e) => e.name), r).not.toContain('WEBHOOK_SECRET_KEYS');
      const cm = ofKind(r, 'ConfigMap').find((c) => c.metadata.name === 'preflight-webhook')!;
      expect(cm.data, r).toMatchObject({ WEBHOOK_PORT: '8083', DB_SCHEMA: 'webhook', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' });
    }
    for (const r of ['delivery:default', 'delivery:production', 'preflight:default', 'preflight:production']) {
      const cm = ofKind(r, 'ConfigMap').find((c) => c.metadata.name === 'preflight-delivery')!;
      expect(cm.data?.WEBHOOK_ALLOW_PRIVATE_TARGETS, r).toBe('false');
    }
  });

  it('the integration key ring comes from the Secret (its own key), and private provider URLs stay refused outside local', () => {
    const env = (r: string, kind: string) => ofKind(r, kind).find((o) => o.metadata.name.startsWith('preflight-integration'))!.spec.template.spec.containers[0].env as Array<{ name: string; valueFrom?: { secretKeyRef?: object } }>;
    for (const r of ['integration:default', 'integration:production', 'preflight:production']) {
      expect(env(r, 'Deployment').find((e) => e.name === 'INTEGRATION_SECRET_KEYS')?.valueFrom?.secretKeyRef, r).toEqual({ name: 'preflight-secrets', key: 'integration-secret-keys' });
      // the migration Job's one credential is DATABASE_URL (migration-job.test.ts)
      expect(env(r, 'Job').map((e) => e.name), r).not.toContain('INTEGRATION_SECRET_KEYS');
    }
    for (const r of ['integration:default', 'integration:production', 'preflight:default', 'preflight:production']) {
      const cm = ofKind(r, 'ConfigMap').find((c) => c.metadata.name === 'preflight-integration')!;
      expect(cm.data, r).toMatchObject({ INTEGRATION_PORT: '8085', DB_SCHEMA: 'integration', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' });
    }
    const local = ofKind('preflight:local', 'ConfigMap').find((c) => c.metadata.name === 'preflight-integration')!;
    expect(local.data?.WEBHOOK_ALLOW_PRIVATE_TARGETS).toBe('true');
  });

  it('the services on the event stream get NATS_URL from the Secret and identical stream settings', () => {
    for (const s of EVENT_SERVICES) {
      for (const r of [`${s}:default`, `${s}:production`]) {
        const env = (kind: string) => ofKind(r, kind)[0]!.spec.template.spec.containers[0].env as Array<{ name: string; valueFrom?: { secretKeyRef?: { key: string } } }>;
        expect(env('Deployment').find((e) => e.name === 'NATS_URL')?.valueFrom?.secretKeyRef?.key, r).toBe('nats-url');
        // the migration Job reaches Postgres only
        expect(env('Job').map((e) => e.name), r).not.toContain('NATS_URL');
      }
      expect(ofKind(`${s}:default`, 'ConfigMap')[0]!.data, s).toMatchObject(EVENTS_DEFAULTS);
      expect(ofKind(`${s}:production`, 'ConfigMap')[0]!.data, s).toMatchObject({ ...EVENTS_DEFAULTS, EVENTS_STREAM_REPLICAS: '3' });
    }
    // Each service makes sure the stream exists with its own settings: differing ones would flap.
    const settings = (data: Record<string, string> = {}) => JSON.stringify(Object.fromEntries(Object.entries(data).filter(([k]) => k.startsWith('EVENTS_')).sort()));
    for (const [name, objs] of rendered) {
      const seen = new Set(objs.filter((o) => o.kind === 'ConfigMap' && EVENT_SERVICES.some((s) => o.metadata.name === `preflight-${s}`)).map((c) => settings(c.data)));
      expect(seen.size, name).toBeLessThanOrEqual(1);
    }
    const prodConfig = (s: string) => settings(((production[s] as { config?: Record<string, string> })?.config));
    expect(new Set(EVENT_SERVICES.map(prodConfig)).size).toBe(1);
    // gateway and webhook are not on the stream
    for (const s of ['gateway', 'webhook']) expect(ofKind(`${s}:default`, 'ConfigMap')[0]!.data?.EVENTS_STREAM, s).toBeUndefined();
  });

  it('pods do not migrate on start: the hook Job does', () => {
    for (const s of SERVICES) {
      const cm = ofKind(`${s}:default`, 'ConfigMap')[0]!;
      expect(cm.data?.MIGRATE_ON_START).toBe('false');
      expect(cm.data?.[`${s.toUpperCase()}_PORT`]).toMatch(/^808[0-6]$/);
    }
    expect(ofKind('gateway:default', 'ConfigMap')[0]!.data).toMatchObject({
      DB_SCHEMA: 'identity',
      CAMPAIGN_URL: 'http://preflight-campaign:8081',
      ISSUE_URL: 'http://preflight-issue:8082',
      WEBHOOK_URL: 'http://preflight-webhook:8083',
      DELIVERY_URL: 'http://preflight-delivery:8084',
      INTEGRATION_URL: 'http://preflight-integration:8085',
    });
    expect(ofKind('delivery:default', 'ConfigMap')[0]!.data).toMatchObject({ DB_SCHEMA: 'delivery', DELIVERY_PORT: '8084', WEBHOOK_URL: 'http://preflight-webhook:8083' });
    expect(ofKind('issue:default', 'ConfigMap')[0]!.data).toMatchObject({ DB_SCHEMA: 'issue', CAMPAIGN_URL: 'http://preflight-campaign:8081' });
    // the issue service's internal API; inbound hook URLs and issue links on the public ingress
    expect(ofKind('integration:default', 'ConfigMap')[0]!.data).toMatchObject({
      DB_SCHEMA: 'integration',
      INTEGRATION_PORT: '8085',
      ISSUE_URL: 'http://preflight-issue:8082',
      PUBLIC_BASE_URL: 'https://api.preflight.example.com',
      ISSUE_LINK_TEMPLATE: 'https://api.preflight.example.com/dashboard/issues/{issueId}',
    });
  });

  it.each([
    ['delivery', deliveryConfigShape],
    ['integration', integrationConfigShape],
  ] as const)('the %s pods get exactly the variables services/<name>/src/config.ts reads', (svc, shape) => {
    // Plus the service-token keys, which the kit's serviceMain reads beside the service's config;
    // less the optional NATS creds/TLS file paths, set only where files are mounted (extraEnv).
    const optional = new Set(Object.keys(natsAuthConfigShape));
    const expected = [...Object.keys(shape).filter((k) => !optional.has(k)), 'SERVICE_AUTH_KEY', 'SERVICE_AUTH_PUBLIC_KEYS'].sort();
    for (const r of [`${svc}:default`, `${svc}:production`, 'preflight:production']) {
      const cm = ofKind(r, 'ConfigMap').find((c) => c.metadata.name === `preflight-${svc}`)!;
      const dep = ofKind(r, 'Deployment').find((d) => d.metadata.name === `preflight-${svc}`)!;
      const fromSecret = dep.spec.template.spec.containers[0].env.filter((e: { valueFrom?: object }) => e.valueFrom).map((e: { name: string }) => e.name);
      expect([...Object.keys(cm.data ?? {}), ...fromSecret].sort(), r).toEqual(expected);
      expect(Number(cm.data?.DB_POOL_MAX), `${r} DB_POOL_MAX (one connection is held for LISTEN)`).toBeGreaterThanOrEqual(2);
    }
  });

  it('the integration pods get the time to finish the jobs in flight at shutdown', () => {
    for (const r of ['integration:default', 'integration:production', 'preflight:production']) {
      const cm = ofKind(r, 'ConfigMap').find((c) => c.metadata.name === 'preflight-integration')!;
      const pod = ofKind(r, 'Deployment').find((d) => d.metadata.name === 'preflight-integration')!.spec.template.spec;
      const preStop = Number(pod.containers[0].lifecycle?.preStop?.exec?.command?.[1] ?? 0);
      // preStop, the server's 10 s drain, then a tracker job of a few calls (three at the full timeout)
      const needed = preStop + 10 + (3 * Number(cm.data?.INTEGRATION_CALL_TIMEOUT_MS)) / 1000;
      expect(pod.terminationGracePeriodSeconds, r).toBeGreaterThan(needed);
    }
  });

  it('services accept traffic only from their callers plus Prometheus', () => {
    const peers = (svc: string, release = 'preflight:production') =>
      ofKind(release, 'NetworkPolicy')
        .find((n) => n.metadata.name === `preflight-${svc}`)!
        .spec.ingress.flatMap((r: { from: Array<{ podSelector?: { matchLabels: Record<string, string> }; namespaceSelector?: object }> }) => r.from)
        .map((p: { podSelector?: { matchLabels: Record<string, string> }; namespaceSelector?: object }) => (p.podSelector ? `pod:${p.podSelector.matchLabels['app.kubernetes.io/name']}` : 'namespace:monitoring'))
        // the `helm test` Pod of the service's own chart (tests/charts/deploy.test.ts)
        .filter((p: string) => p !== `pod:${svc}-test`);
    expect(peers('campaign').sort()).toEqual(['namespace:monitoring', 'pod:gateway', 'pod:issue']);
    // the integration service reads issues and applies tracker-synced status changes on /internal/v1
    expect(peers('issue').sort()).toEqual(['namespace:monitoring', 'pod:gateway', 'pod:integration']);
    // the delivery pods read endpoints and report outcomes on /internal/v1
    expect(peers('webhook').sort()).toEqual(['namespace:monitoring', 'pod:delivery', 'pod:gateway']);
    // the gateway, for its admin deliveries routes; the webhook service, for endpoint stats
    expect(peers('delivery', 'delivery:production').sort()).toEqual(['namespace:monitoring', 'pod:gateway', 'pod:webhook']);
    // the gateway only: the admin integration routes and the trackers' inbound hooks it forwards
    for (const r of ['integration:production', 'preflight:production']) expect(peers('integration', r).sort(), r).toEqual(['namespace:monitoring', 'pod:gateway']);
  });

  type Peer = { podSelector?: { matchLabels: Record<string, string> }; namespaceSelector?: object; ipBlock?: { cidr: string; except?: string[] } };
  type EgressRule = { to?: Peer[]; ports?: Array<{ port: number | string }> };
  const egress = (release: string, svc: string): EgressRule[] => ofKind(release, 'NetworkPolicy').find((n) => n.metadata.name === `preflight-${svc}`)!.spec.egress;
  const allowsPort = (rules: EgressRule[], port: number) => rules.some((r) => r.ports?.some((p) => p.port === port));
  const toComponent = (rules: EgressRule[], name: string, port: number) =>
    rules.some((r) => r.ports?.some((p) => p.port === port) && r.to?.some((p) => p.podSelector?.matchLabels['app.kubernetes.io/name'] === name));

  it('the services on the event stream, and the webhook service for its signal, may reach NATS; the gateway may not', () => {
    for (const s of [...EVENT_SERVICES, 'webhook']) for (const r of [`${s}:default`, `${s}:production`]) expect(allowsPort(egress(r, s), 4222), r).toBe(true);
    expect(allowsPort(egress('gateway:default', 'gateway'), 4222)).toBe(false);
    // production names the NATS pods instead of any address
    for (const s of ['campaign', 'issue', 'webhook', 'delivery', 'integration']) {
      const nats = egress('preflight:production', s).find((r) => r.ports?.some((p) => p.port === 4222))!;
      expect(nats.to?.length, s).toBeGreaterThan(0);
    }
  });

  it('the gateway may call webhook, delivery and integration, and delivery the webhook service', () => {
    const gw = egress('preflight:production', 'gateway');
    expect(toComponent(gw, 'webhook', 8083) && toComponent(gw, 'delivery', 8084) && toComponent(gw, 'integration', 8085)).toBe(true);
    for (const r of ['delivery:default', 'delivery:production']) expect(toComponent(egress(r, 'delivery'), 'webhook', 8083), r).toBe(true);
    for (const r of ['integration:default', 'integration:production', 'preflight:production']) expect(toComponent(egress(r, 'integration'), 'issue', 8082), r).toBe(true);
  });

  it('integration reaches the providers (public addresses on 443) but not cluster or private ranges', () => {
    for (const r of ['integration:default', 'integration:production', 'preflight:production']) {
      const rules = egress(r, 'integration');
      const blocks = rules.flatMap((rule) => (rule.to ?? []).filter((p) => p.ipBlock).map((p) => ({ ...p.ipBlock!, ports: rule.ports })));
      const internet = blocks.filter((b) => b.cidr === '0.0.0.0/0');
      expect(internet.length, r).toBe(1);
      expect([...(internet[0]!.except ?? [])].sort(), r).toEqual([...NON_PUBLIC_V4].sort());
      expect(internet[0]!.ports, r).toEqual([{ port: 443, protocol: 'TCP' }]);
      for (const b of blocks.filter((b) => b.cidr !== '0.0.0.0/0')) expect(Number(b.cidr.split('/')[1]), `${r} ${b.cidr}`).toBeGreaterThan(8);
    }
    // in production no port is open to every address: Postgres and NATS are named
    for (const rule of egress('preflight:production', 'integration')) expect(rule.to?.length, JSON.stringify(rule)).toBeGreaterThan(0);
  });

  it('delivery reaches the internet but not cluster or private ranges', async () => {
    const on = await template('preflight', ['-f', join(root, 'deploy/values-production.yaml')]);
    const umbrella = on.filter((o) => o.kind === 'NetworkPolicy').find((n) => n.metadata.name === 'preflight-delivery')!.spec.egress as EgressRule[];
    for (const [where, rules] of [
      ['delivery:default', egress('delivery:default', 'delivery')],
      ['delivery:production', egress('delivery:production', 'delivery')],
      ['preflight:production', umbrella],
    ] as Array<[string, EgressRule[]]>) {
      const blocks = rules.flatMap((r) => (r.to ?? []).filter((p) => p.ipBlock).map((p) => ({ ...p.ipBlock!, ports: r.ports })));
      const internet = blocks.filter((b) => b.cidr === '0.0.0.0/0');
      expect(internet.length, where).toBe(1);
      expect([...(internet[0]!.except ?? [])].sort(), where).toEqual([...NON_PUBLIC_V4].sort());
      // no other rule opens a wide range (a /8 or wider) by address
      for (const b of blocks.filter((b) => b.cidr !== '0.0.0.0/0')) expect(Number(b.cidr.split('/')[1]), `${where} ${b.cidr}`).toBeGreaterThan(8);
    }
    // In production no port is open to every address: Postgres and NATS are named, so a
    // webhook URL on a private address and their port is not let through by those rules.
    for (const [where, rules] of [['delivery:production', egress('delivery:production', 'delivery')], ['umbrella', umbrella]] as Array<[string, EgressRule[]]>) {
      for (const r of rules) expect(r.to?.length, `${where} ${JSON.stringify(r)}`).toBeGreaterThan(0);
    }
    expect(on.filter((o) => o.kind === 'Deployment').map((d) => d.metadata.name)).toContain('preflight-delivery');
    const dep = on.find((o) => o.kind === 'Deployment' && o.metadata.name === 'preflight-delivery')!;
    expect(dep.spec.template.spec.containers[0].command).toEqual(['node', 'services/delivery/dist/main.js']);
  });

  it('a config change changes the pods checksum (rolls the pods)', async () => {
    const before = ofKind('campaign:default', 'Deployment')[0]!.spec.template.metadata.annotations['checksum/config'];
    const after = (await template('campaign', ['--set', 'config.LOG_LEVEL=debug'])).find((o) => o.kind === 'Deployment')!.spec.template.metadata.annotations['checksum/config'];
    expect(after).not.toBe(before);
  });
});

describe('values schemas', () => {
  it('every service chart carries the shared schema, but for its own config keys (scripts/chart-schemas.ts)', () => {
    const shared = (s: string) => {
      const schema = JSON.parse(readFileSync(join(root, `charts/${s}/values.schema.json`), 'utf8'));
      delete schema.properties.config.properties;
      return schema;
    };
    for (const s of SERVICES) expect(shared(s), s).toEqual(shared('gateway'));
  });

  it('config values render as the services read them: numbers, booleans, templates; null leaves one out', async () => {
    const file = join(work, 'values-config-kinds.yaml');
    writeFileSync(file, JSON.stringify({ config: { DB_POOL_MAX: 20, WEBHOOK_ALLOW_PRIVATE_TARGETS: false, LOG_LEVEL: null, DB_SCHEMA: '{{ .Release.Name }}_delivery' } }));
    const objs = await template('delivery', ['-f', file]);
    const data = objs.find((o) => o.kind === 'ConfigMap')!.data!;
    expect(data).toMatchObject({ DB_POOL_MAX: '20', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false', DB_SCHEMA: 'pf_delivery' });
    expect(data.LOG_LEVEL).toBeUndefined();
  });

  // Values the schemas refuse (unknown names, a service's variables of the wrong type): in deploy.test.ts's table of refused values.

  it('a latency threshold that is not a histogram bucket fails the render', async () => {
    await expect(template('gateway', ['--set-string', 'prometheusRule.slo.latency.thresholdSeconds=0.3'])).rejects.toThrow('not a bucket');
  });
});

describe('observability', () => {
  const operations = () => readFileSync(join(root, 'docs/operations.md'), 'utf8');

  function rules(objs: K8sObject[]) {
    return objs
      .filter((o) => o.kind === 'PrometheusRule')
      .flatMap((o) => o.spec.groups.flatMap((g: { rules: object[] }) => g.rules)) as Array<{ alert?: string; record?: string; expr: string; annotations?: Record<string, string>; labels?: Record<string, string> }>;
  }

  /**
   * The expressions of the alerts `names` in each render (default, production) of `owner`'s
   * chart, once it is checked that they are all there, on `owner`'s metrics, and on in no other chart.
   */
  function ownedAlerts(owner: (typeof SERVICES)[number], names: string[]): Array<(alert: string) => string> {
    const out: Array<(alert: string) => string> = [];
    for (const s of SERVICES) {
      for (const r of [`${s}:default`, `${s}:production`]) {
        const on = rules(ofKind(r, 'PrometheusRule')).filter((a) => a.alert && names.includes(a.alert));
        if (s !== owner) {
          expect(on, r).toEqual([]);
          continue;
        }
        expect(on.map((a) => a.alert).sort(), r).toEqual([...names].sort());
        for (const a of on) expect(a.expr, `${r} ${a.alert}`).toContain(`service="${owner}"`);
        out.push((name) => on.find((a) => a.alert === name)!.expr);
      }
    }
    return out;
  }

  it('every alert has a severity and a runbook_url whose anchor exists in docs/operations.md', () => {
    const anchors = githubAnchors(operations());
    const alerts = rules(rendered.get('preflight:production')!).filter((r) => r.alert);
    expect(new Set(alerts.map((a) => a.alert))).toEqual(
      new Set([
        'PreflightErrorBudgetBurn',
        'PreflightLatencyBudgetBurn',
        'PreflightServiceDown',
        'PreflightRateLimitedSpike',
        'PreflightRateLimiterDegraded',
        'PreflightUpstreamCircuitOpen',
        'PreflightOutboxBacklogAge',
        'PreflightConsumerLag',
        'PreflightWebhookFailureRatio',
        'PreflightWebhookEndpointsAutoDisabled',
        'PreflightDeliveryBreakersOpen',
        'PreflightWebhookDeliveriesLate',
        'PreflightIntegrationJobsBacklog',
        'PreflightIntegrationConnectionsNeedAttention',
        'PreflightIntegrationBreakersOpen',
        'PreflightIntegrationJobFailures',
        'PreflightSecretsUndecryptable',
        'PreflightWebhookDeliveriesHeldForKey',
      ]),
    );
    for (const a of alerts) {
      expect(a.labels?.severity, a.alert).toMatch(/^(critical|warning|info)$/);
      const url = a.annotations?.runbook_url ?? '';
      expect(url.startsWith('https://preflight.example.com/docs/operations.md#'), url).toBe(true);
      expect(anchors.has(url.split('#')[1]!), `${a.alert}: anchor ${url} in docs/operations.md`).toBe(true);
    }
  });

  it('the SLO alerts use multi-window multi-burn-rate pairs (1h/5m and 6h/30m)', () => {
    const alerts = rules(ofKind('gateway:default', 'PrometheusRule'));
    const burn = alerts.find((a) => a.alert === 'PreflightErrorBudgetBurn')!;
    for (const w of ['rate1h', 'rate5m', 'rate6h', 'rate30m']) expect(burn.expr).toContain(`preflight:http_error_ratio:${w}`);
    expect(burn.expr).toContain('14.4 * (1 - 0.999)');
    const records = alerts.filter((r) => r.record).map((r) => r.record);
    expect(records).toContain('preflight:http_slow_ratio:rate6h');
  });

  it('the event alerts (outbox age, consumer lag) are on for campaign and issue, consumer lag for delivery and integration, on their real metrics', () => {
    const event = ['PreflightOutboxBacklogAge', 'PreflightConsumerLag'];
    for (const s of SERVICES) {
      const on = rules(ofKind(`${s}:production`, 'PrometheusRule')).filter((r) => r.alert && event.includes(r.alert));
      if (s === 'campaign' || s === 'issue') {
        expect(on.map((r) => r.alert).sort(), s).toEqual([...event].sort());
        expect(on.flatMap((r) => metricNames(r.expr)).sort(), s).toEqual(['consumer_lag', 'outbox_oldest_unpublished_age_seconds']);
        for (const r of on) expect(r.expr, s).toContain(`service="${s}"`);
      } else if (s === 'delivery' || s === 'integration') {
        // the fan-out consumer, the sync consumer; these services have no outbox
        expect(on.map((r) => r.alert), s).toEqual(['PreflightConsumerLag']);
        expect(on[0]!.expr, s).toContain(`service="${s}"`);
      } else {
        expect(on, s).toEqual([]);
      }
    }
    // what the alerts and panels read on campaign and issue is listed as exported by them
    const list = JSON.parse(readFileSync(join(root, 'charts/metrics-used.json'), 'utf8'));
    for (const s of ['campaign', 'issue']) expect([...list.exported[s]].sort(), s).toEqual(['consumer_lag', 'outbox_backlog', 'outbox_oldest_unpublished_age_seconds']);
  });

  it('charts/metrics-used.json lists as exported only services that run by default (a running-system test reads them)', () => {
    const list = JSON.parse(readFileSync(join(root, 'charts/metrics-used.json'), 'utf8'));
    const running = ofKind('preflight:default', 'Deployment').map((d) => d.metadata.name.replace(/^preflight-/, ''));
    for (const owner of Object.keys(list.exported)) if (owner !== 'all') expect(running, owner).toContain(owner);
  });

  it('the webhook delivery alerts are on for delivery only, on its real metrics and label values', () => {
    const webhook = ['PreflightWebhookFailureRatio', 'PreflightWebhookEndpointsAutoDisabled', 'PreflightDeliveryBreakersOpen', 'PreflightWebhookDeliveriesLate'];
    for (const expr of ownedAlerts('delivery', webhook)) {
      // final outcomes are delivered | failed | cancelled (services/delivery/src/worker/scheduler.ts)
      expect(expr('PreflightWebhookFailureRatio')).toContain('webhook_deliveries_total{namespace="preflight",service="delivery",outcome="failed"}');
      expect(expr('PreflightWebhookFailureRatio')).toContain('outcome=~"delivered|failed"');
      expect(metricNames(expr('PreflightWebhookEndpointsAutoDisabled'))).toEqual(['webhook_endpoints_auto_disabled_total']);
      // gauges reported per replica (the late count is the same database-wide figure on each): max, never sum
      expect(expr('PreflightDeliveryBreakersOpen')).toMatch(/^max by \(namespace, service\) \(delivery_circuit_breakers_open\{/);
      expect(expr('PreflightWebhookDeliveriesLate')).toMatch(/^max by \(namespace, service\) \(webhook_deliveries_due_late\{/);
    }
    const list = JSON.parse(readFileSync(join(root, 'charts/metrics-used.json'), 'utf8'));
    expect(list.planned).toBeUndefined();
    for (const m of ['webhook_deliveries_total', 'webhook_endpoints_auto_disabled_total', 'delivery_circuit_breakers_open', 'webhook_deliveries_due_late']) expect(list.exported.delivery, m).toContain(m);
  });

  it('the integration alerts are on for integration only, on its real metrics and label values', () => {
    const integration = ['PreflightIntegrationJobsBacklog', 'PreflightIntegrationConnectionsNeedAttention', 'PreflightIntegrationBreakersOpen', 'PreflightIntegrationJobFailures'];
    for (const expr of ownedAlerts('integration', integration)) {
      // failures are the tries a provider rejected or did not answer (services/integration/src/worker/job-worker.ts)
      expect(expr('PreflightIntegrationJobFailures')).toContain('integration_jobs_total{namespace="preflight",service="integration",outcome=~"rejected|unavailable"}');
      // database figures every replica reports alike, and per-replica breakers: max, never sum
      expect(expr('PreflightIntegrationJobsBacklog')).toMatch(/^max by \(namespace, service\) \(integration_jobs_due\{/);
      expect(expr('PreflightIntegrationConnectionsNeedAttention')).toMatch(/^max by \(namespace, service\) \(integration_connections_needing_attention\{/);
      expect(expr('PreflightIntegrationBreakersOpen')).toMatch(/^max by \(namespace, service\) \(integration_circuit_breakers_open\{/);
    }
  });

  it('alerts and the dashboard use only metrics listed in charts/metrics-used.json', () => {
    const known = knownMetrics();
    const used = new Set<string>();
    for (const [, objs] of rendered) for (const r of rules(objs)) for (const m of metricNames(r.expr)) used.add(m);
    const dashboard = JSON.parse(ofKind('preflight:default', 'ConfigMap').find((c) => c.metadata.labels?.grafana_dashboard === '1')!.data!['preflight-overview.json']!);
    const exprs = JSON.stringify(dashboard).match(/"(expr|query)":"((?:[^"\\]|\\.)*)"/g) ?? [];
    for (const e of exprs) for (const m of metricNames(JSON.parse(`{${e}}`)[e.startsWith('"expr"') ? 'expr' : 'query'])) used.add(m);
    const unknown = [...used].filter((m) => !known.has(m));
    expect(unknown).toEqual([]);
    // and the list names nothing the charts no longer use
    expect([...known].filter((m) => !used.has(m))).toEqual([]);
  });

  it('the Grafana dashboard ships as a ConfigMap labelled for the sidecar, with the promised panels', () => {
    const cm = ofKind('preflight:production', 'ConfigMap').find((c) => c.metadata.labels?.grafana_dashboard === '1');
    expect(cm).toBeDefined();
    const dash = JSON.parse(cm!.data!['preflight-overview.json']!);
    expect(dash.uid).toBe('preflight-overview');
    const titles = dash.panels.map((p: { title: string }) => p.title).join('\n');
    for (const t of ['Request rate', 'Error ratio', 'p50 latency', 'p99 latency', 'Rate limited', 'circuit breaker', 'Outbox backlog', 'outbox event age', 'Consumer lag', 'restarts']) expect(titles).toContain(t);
    for (const t of ['Webhook deliveries by outcome', 'Delivery attempt latency p99', 'Deliveries pending and late', 'Delivery circuit breakers open']) expect(titles).toContain(t);
    for (const t of ['Integration jobs by outcome', 'Integration call latency p99', 'Integration jobs due', 'Integration circuit breakers open']) expect(titles).toContain(t);
  });

  it('ServiceMonitors scrape /metrics and keep the service label', () => {
    for (const sm of ofKind('preflight:production', 'ServiceMonitor')) {
      expect(sm.spec.endpoints[0]).toMatchObject({ port: 'http', path: '/metrics', honorLabels: true });
      expect(sm.metadata.labels?.release).toBe('kube-prometheus-stack');
    }
  });
});

function expectHardenedContainer(c: { name: string; resources?: { requests?: Record<string, string>; limits?: Record<string, string> }; securityContext?: Record<string, unknown> & { capabilities?: { drop?: string[] } } }, where: string) {
  expect(c.resources?.requests?.cpu, `${where} ${c.name} cpu request`).toBeTruthy();
  expect(c.resources?.requests?.memory, `${where} ${c.name} memory request`).toBeTruthy();
  expect(c.resources?.limits?.memory, `${where} ${c.name} memory limit`).toBeTruthy();
  expect(c.securityContext?.runAsNonRoot, `${where} ${c.name}`).toBe(true);
  expect(c.securityContext?.readOnlyRootFilesystem, `${where} ${c.name}`).toBe(true);
  expect(c.securityContext?.allowPrivilegeEscalation, `${where} ${c.name}`).toBe(false);
  expect(c.securityContext?.capabilities?.drop, `${where} ${c.name}`).toEqual(['ALL']);
}

// The chart sources this suite reads, so a forgotten file shows up as a clear failure.
it('every service chart has one template per resource', () => {
  const expected = ['NOTES.txt', ...['configmap', 'deployment', 'hpa', 'ingress', 'migration-job', 'networkpolicy', 'pdb', 'prometheusrule', 'scaledobject', 'service', 'serviceaccount', 'servicemonitor'].map((f) => `${f}.yaml`), 'tests'];
  for (const s of SERVICES) {
    expect(readdirSync(join(root, `charts/${s}/templates`)).sort(), s).toEqual(expected);
    expect(readFileSync(join(root, `charts/${s}/templates/NOTES.txt`), 'utf8'), s).toBe('{{- include "preflight-lib.notes" . }}\n');
    expect(readdirSync(join(root, `charts/${s}/templates/tests`)), s).toEqual(['readyz.yaml']);
  }
});
