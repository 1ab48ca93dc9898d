/**
 * Issue 23's chart findings, checked offline with Helm (scripts/helm.mjs) and promtool:
 * the admin API off the public Ingress, migration hooks that work under a namespace default-deny,
 * Bitnami-style extras, capability checks and kubeVersion, refused values (schema or template
 * `fail`), independent deploys (names and URLs from global.instance, charts versioned and
 * packaged on their own, the stream owned by one hook Job), `helm test` Pods, the KEDA option,
 * deploy/nats-production.yaml, and the alert rules through `promtool check rules` and
 * `promtool test rules` (tests/charts/*.promtest.yaml).
 *
 * promtool comes from Debian's `prometheus` package (.ci/run installs it when missing).
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { Deployment } from 'kubernetes-models/apps/v1';
import { Job } from 'kubernetes-models/batch/v1';
import { Pod } from 'kubernetes-models/v1';
import { releaseCharts } from '../../scripts/release-charts.ts';

const run = promisify(execFile);
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SERVICES = ['gateway', 'campaign', 'issue', 'webhook', 'delivery', 'integration', 'console'] as const;
const EVENT_SERVICES = ['campaign', 'issue', 'delivery', 'integration'] as const;
const PORTS: Record<string, number> = { gateway: 8080, campaign: 8081, issue: 8082, webhook: 8083, delivery: 8084, integration: 8085, console: 8086 };
const MONITORING = ['--api-versions', 'monitoring.coreos.com/v1'];

type K8sObject = { apiVersion: string; kind: string; metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: any; data?: Record<string, string> };

let helm = '';
let work = '';

async function helmRun(args: string[]): Promise<string> {
  try {
    const { stdout } = await run(helm, args, { cwd: work, maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  } catch (err) {
    const e = err as { stderr?: string; stdout?: string };
    throw new Error(`helm ${args.join(' ')} failed:\n${e.stderr ?? ''}${e.stdout ?? ''}`, { cause: err });
  }
}

async function template(chart: string, args: string[] = [], release = 'pf'): Promise<K8sObject[]> {
  const out = await helmRun(['template', release, `charts/${chart}`, '--namespace', 'preflight', ...args]);
  return parseAllDocuments(out)
    .map((d) => d.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null);
}

function valuesFile(name: string, values: unknown): string {
  const file = join(work, `${name}.yaml`);
  writeFileSync(file, stringify(values));
  return file;
}

const find = (objs: K8sObject[], kind: string, name: string) => objs.find((o) => o.kind === kind && o.metadata.name === name);
const hook = (o: K8sObject | undefined) => o?.metadata.annotations?.['helm.sh/hook'];
const weight = (o: K8sObject | undefined) => Number(o?.metadata.annotations?.['helm.sh/hook-weight'] ?? 0);
const production = parse(readFileSync(join(root, 'deploy/values-production.yaml'), 'utf8')) as Record<string, any>;

function productionSlice(service: string): string {
  return valuesFile(`production-${service}`, { ...(production[service] ?? {}), global: production.global });
}

beforeAll(async () => {
  helm = execFileSync(process.execPath, [join(root, 'scripts/helm.mjs'), '--path'], { encoding: 'utf8' }).trim();
  work = mkdtempSync(join(tmpdir(), 'preflight-deploy-'));
  cpSync(join(root, 'charts'), join(work, 'charts'), { recursive: true, filter: (src) => !src.endsWith('.tgz') });
  for (const chart of [...SERVICES, 'preflight']) await helmRun(['dependency', 'build', `charts/${chart}`]);
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('finding 1: the admin API is not on the public Ingress', () => {
  it('the public Ingress routes /api/v1, /integrations/v1 and /console only; /admin/v1 goes through the internal one', async () => {
    const objs = await template('preflight', ['-f', join(root, 'deploy/values-production.yaml')]);
    const ingresses = objs.filter((o) => o.kind === 'Ingress');
    const paths = (o: K8sObject) => o.spec.rules.flatMap((r: { http: { paths: Array<{ path: string }> } }) => r.http.paths.map((p) => p.path)).sort();
    const pub = find(objs, 'Ingress', 'preflight-gateway')!;
    expect(paths(pub)).toEqual(['/api/v1', '/console', '/integrations/v1']);
    expect(pub.spec.ingressClassName).toBe('nginx');
    const admin = find(objs, 'Ingress', 'preflight-gateway-admin')!;
    expect(paths(admin)).toEqual(['/admin/v1']);
    expect(admin.spec.ingressClassName).toBe('nginx-internal');
    expect(admin.spec.rules[0].host).not.toBe(pub.spec.rules[0].host);
    expect(ingresses).toHaveLength(2);
    // the internal controller's pods may reach the gateway
    const np = find(objs, 'NetworkPolicy', 'preflight-gateway')!;
    expect(JSON.stringify(np.spec.ingress)).toContain('ingress-nginx-internal');
  });

  it('by default the gateway has no admin Ingress (port-forward), and its public paths leave /admin out', async () => {
    const objs = await template('gateway', ['--set', 'ingress.enabled=true']);
    expect(objs.filter((o) => o.kind === 'Ingress').map((o) => o.metadata.name)).toEqual(['preflight-gateway']);
    expect(JSON.stringify(find(objs, 'Ingress', 'preflight-gateway')!.spec)).not.toContain('/admin');
    const values = parse(readFileSync(join(root, 'charts/gateway/values.yaml'), 'utf8'));
    expect(values.adminIngress.enabled).toBe(false);
    expect(readFileSync(join(root, 'docs/operations.md'), 'utf8')).toContain('port-forward svc/preflight-gateway 8080');
  });

  it('the public paths are refused by the template as well, should the schema be skipped', async () => {
    const render = (paths: object[], schema = false) => template('gateway', [...(schema ? [] : ['--skip-schema-validation']), '-f', valuesFile('public-paths', { ingress: { enabled: true, paths } })]);
    for (const path of ['/', '/a', '/admin', '/ADMIN/v1']) await expect(render([{ path: '/api/v1' }, { path }]), path).rejects.toThrow('would route the admin API');
    await expect(render([{ path: '/api/.*' }])).rejects.toThrow('not a literal prefix');
    await expect(render([{ path: '/api/v1', pathType: 'ImplementationSpecific' }])).rejects.toThrow('ImplementationSpecific');
    // public prefixes that only share a first letter or a segment with /admin pass both checks
    const ok = await render([{ path: '/api/v1' }, { path: '/api/v1/admin', pathType: 'Exact' }, { path: '/about' }, { path: '/console/' }], true);
    expect(JSON.stringify(find(ok, 'Ingress', 'preflight-gateway')!.spec)).toContain('/about');
  });
});

describe('finding 2: migration hooks under a namespace default-deny', () => {
  it('each migration Job has its own ServiceAccount and NetworkPolicy as hooks of lower weight, and Istio off', async () => {
    for (const [release, objs] of [
      ...SERVICES.map((s) => [s, template(s)] as const),
      ['preflight:production', template('preflight', ['-f', join(root, 'deploy/values-production.yaml')])] as const,
    ]) {
      const rendered = await objs;
      const services = release.startsWith('preflight') ? SERVICES : [release];
      for (const s of services) {
        const where = `${release} ${s}`;
        const job = find(rendered, 'Job', `preflight-${s}-migrate`)!;
        const sa = find(rendered, 'ServiceAccount', `preflight-${s}-migrate`)!;
        const np = find(rendered, 'NetworkPolicy', `preflight-${s}-migrate`)!;
        for (const o of [job, sa, np]) expect(hook(o), where).toBe('pre-install,pre-upgrade');
        expect(weight(sa), where).toBeLessThan(weight(job));
        expect(weight(np), where).toBeLessThan(weight(job));
        const pod = job.spec.template;
        expect(pod.spec.serviceAccountName, where).toBe(sa.metadata.name);
        expect(pod.spec.automountServiceAccountToken, where).toBe(false);
        expect(pod.metadata.annotations?.['sidecar.istio.io/inject'], where).toBe('false');
        // the policy selects the Job's pods, and lets them reach DNS and Postgres only
        for (const [k, v] of Object.entries(np.spec.podSelector.matchLabels as Record<string, string>)) expect(pod.metadata.labels[k], `${where} ${k}`).toBe(v);
        const ports = np.spec.egress.flatMap((r: { ports: Array<{ port: number }> }) => r.ports.map((p) => p.port)).sort();
        expect(ports, where).toEqual([53, 53, 5432]);
        expect(np.spec.policyTypes, where).toEqual(['Ingress', 'Egress']);
      }
    }
  });

  it('the Job can take its own DATABASE_URL (a role allowed DDL) while the pods keep theirs', async () => {
    const objs = await template('issue', ['--set', 'migrations.databaseUrlSecret.key=database-url-migrations', '--set', 'migrations.databaseUrlSecret.name=issue-migrator']);
    const ref = (o: K8sObject) => o.spec.template.spec.containers[0].env.find((e: { name: string }) => e.name === 'DATABASE_URL').valueFrom.secretKeyRef;
    expect(ref(find(objs, 'Job', 'preflight-issue-migrate')!)).toEqual({ name: 'issue-migrator', key: 'database-url-migrations' });
    expect(ref(find(objs, 'Deployment', 'preflight-issue')!)).toEqual({ name: 'preflight-secrets', key: 'database-url' });
    const defaults = await template('issue');
    expect(ref(find(defaults, 'Job', 'preflight-issue-migrate')!)).toEqual({ name: 'preflight-secrets', key: 'database-url' });
  });
});

describe('finding 4: extra volumes, init containers, sidecars, pod annotations and labels', () => {
  const hardened = { runAsNonRoot: true, allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } };
  const extras = {
    podAnnotations: { 'example.com/team': 'issues' },
    podLabels: { team: 'issues' },
    extraEnv: [{ name: 'NODE_EXTRA_CA_CERTS', value: '/etc/pg-ca/ca.crt' }],
    extraEnvFrom: [{ configMapRef: { name: 'issue-extra' } }],
    extraVolumes: [{ name: 'pg-ca', secret: { secretName: 'pg-ca' } }],
    extraVolumeMounts: [{ name: 'pg-ca', mountPath: '/etc/pg-ca', readOnly: true }],
    initContainers: [{ name: 'wait', image: 'busybox:1.37', command: ['true'], securityContext: hardened, resources: { requests: { cpu: '10m', memory: '16Mi' }, limits: { memory: '32Mi' } } }],
    sidecars: [{ name: 'proxy', image: 'envoyproxy/envoy:v1.32.0', securityContext: hardened, resources: { requests: { cpu: '10m', memory: '32Mi' }, limits: { memory: '64Mi' } } }],
  };

  it('reach the server pods (all of them) and the migration Job (volumes, mounts, env)', async () => {
    for (const [where, objs] of [
      ['issue', await template('issue', ['-f', valuesFile('extras', extras)])],
      ['umbrella', await template('preflight', ['-f', valuesFile('extras-umbrella', { issue: extras })])],
    ] as const) {
      // valid objects with the extras in (the Kubernetes schemas), every container at the restricted level
      new Deployment(find(objs, 'Deployment', 'preflight-issue') as never).validate();
      new Job(find(objs, 'Job', 'preflight-issue-migrate') as never).validate();
      const pod = find(objs, 'Deployment', 'preflight-issue')!.spec.template;
      expect(pod.spec.securityContext.seccompProfile.type, where).toBe('RuntimeDefault');
      for (const c of [...pod.spec.initContainers, ...pod.spec.containers]) expect(c.securityContext, `${where} ${c.name}`).toMatchObject({ runAsNonRoot: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
      expect(pod.metadata.annotations['example.com/team'], where).toBe('issues');
      expect(pod.metadata.annotations['checksum/config'], where).toMatch(/^[a-f0-9]{64}$/);
      expect(pod.metadata.labels.team, where).toBe('issues');
      expect(pod.spec.initContainers.map((c: { name: string }) => c.name), where).toEqual(['wait']);
      expect(pod.spec.containers.map((c: { name: string }) => c.name), where).toEqual(['issue', 'proxy']);
      const main = pod.spec.containers[0];
      expect(main.envFrom, where).toEqual([{ configMapRef: { name: 'preflight-issue' } }, { configMapRef: { name: 'issue-extra' } }]);
      expect(main.volumeMounts.map((m: { name: string }) => m.name), where).toEqual(['tmp', 'pg-ca']);
      expect(pod.spec.volumes.map((v: { name: string }) => v.name), where).toEqual(['tmp', 'pg-ca']);
      const job = find(objs, 'Job', 'preflight-issue-migrate')!.spec.template.spec;
      expect(job.volumes.map((v: { name: string }) => v.name), where).toEqual(['tmp', 'pg-ca']);
      expect(job.containers[0].volumeMounts.map((m: { name: string }) => m.name), where).toEqual(['tmp', 'pg-ca']);
      expect(job.containers[0].envFrom, where).toEqual([{ configMapRef: { name: 'issue-extra' } }]);
      expect(job.containers[0].env.some((e: { name: string }) => e.name === 'NODE_EXTRA_CA_CERTS'), where).toBe(true);
      // the sidecar and init container never reach the Job (a sidecar would keep it running)
      expect(job.containers, where).toHaveLength(1);
      expect(job.initContainers, where).toBeUndefined();
    }
  });

  it('are in every service chart\'s schema with their shapes', () => {
    for (const s of SERVICES) {
      const props = JSON.parse(readFileSync(join(root, `charts/${s}/values.schema.json`), 'utf8')).properties;
      for (const key of ['extraVolumes', 'extraVolumeMounts', 'initContainers', 'sidecars', 'podAnnotations', 'podLabels', 'extraEnv', 'extraEnvFrom']) expect(props[key], `${s} ${key}`).toBeDefined();
      expect(props.extraVolumeMounts.items.required, s).toEqual(['name', 'mountPath']);
      expect(props.sidecars.items.required, s).toEqual(['name', 'image', 'securityContext']);
    }
  });
});

describe('finding 5: capability checks and kubeVersion', () => {
  it('ServiceMonitor and PrometheusRule render only where monitoring.coreos.com/v1 is served, or when forced', async () => {
    const kinds = (objs: K8sObject[]) => objs.filter((o) => o.kind === 'ServiceMonitor' || o.kind === 'PrometheusRule').length;
    expect(kinds(await template('preflight'))).toBe(0);
    expect(kinds(await template('issue'))).toBe(0);
    expect(kinds(await template('preflight', MONITORING))).toBe(14);
    expect(kinds(await template('preflight', ['--set', 'global.monitoringApi=always']))).toBe(14);
    expect(kinds(await template('issue', ['--set', 'monitoringApi=always']))).toBe(2);
    expect(kinds(await template('issue', [...MONITORING, '--set', 'serviceMonitor.enabled=false']))).toBe(1);
  });

  it('every chart requires Kubernetes 1.27 (matchLabelKeys, unhealthyPodEvictionPolicy) and refuses an older cluster', async () => {
    for (const c of [...SERVICES, 'preflight', 'preflight-lib']) {
      const chart = parse(readFileSync(join(root, `charts/${c}/Chart.yaml`), 'utf8'));
      expect(chart.kubeVersion, c).toBe('>=1.27.0-0');
    }
    await expect(template('issue', ['--kube-version', '1.26.5'])).rejects.toThrow(/kubeVersion/);
    await expect(template('preflight', ['--kube-version', '1.26.5'])).rejects.toThrow(/kubeVersion/);
    expect((await template('issue', ['--kube-version', '1.27.0'])).length).toBeGreaterThan(5);
  });
});

/** Names the values schemas do not know, and a service's own variables of the wrong type (typed from its config shape). */
const SCHEMA_REFUSALS: Array<[string, string[], string]> = [
    ['gateway', ['--set', 'replicaCont=3'], 'replicaCont'],
    ['gateway', ['--set', 'image.tga=1'], 'tga'],
    ['campaign', ['--set', 'networkPolicy.enabeld=false'], 'enabeld'],
    ['issue', ['--set', 'config.DATABASE_URL=postgres://x'], 'config'],
    ['webhook', ['--set', 'config.WEBHOOK_SECRET_KEYS=k1:AAAA'], 'config'],
    ['campaign', ['--set', 'config.NATS_URL=nats://user:pw@nats:4222'], 'config'],
    ['issue', [...MONITORING, '--set', 'prometheusRule.slo.latency.objective=99'], 'objective'],
    ['preflight', ['--set', 'gatway.enabled=false'], 'gatway'],
    ['preflight', ['--set', 'global.imageTga=1'], 'imageTga'],
    ['preflight', ['--set', 'campaign.replicaCont=1'], 'replicaCont'],
    ['preflight', ['--set', 'webhook.replicaCont=1'], 'replicaCont'],
    ['delivery', ['--set', 'config.NATS_URL=nats://user:pw@nats:4222'], 'config'],
    ['campaign', ['--set', 'config.DB_POOL_MAX=0'], 'DB_POOL_MAX'],
    ['gateway', ['--set', 'config.LOG_LEVEL=verbose'], 'LOG_LEVEL'],
    ['webhook', ['--set', 'config.WEBHOOK_ALLOW_PRIVATE_TARGETS=maybe'], 'WEBHOOK_ALLOW_PRIVATE_TARGETS'],
    ['preflight', ['--set', 'delivery.config.DELIVERY_WORKERS=lots'], 'DELIVERY_WORKERS'],
    ['integration', ['--set', 'config.INTEGRATION_SECRET_KEYS=k1:AAAA'], 'config'],
    ['preflight', ['--set', 'integration.config.INTEGRATION_WORKERS=lots'], 'INTEGRATION_WORKERS'],
    ['preflight', [...MONITORING, '--set', 'integration.prometheusRule.rules.integrationJobFailures.ratio=2'], 'ratio'],
];

describe('finding 6 (and 2, 5): values that are refused, by the schema or a template fail', () => {
  /** A values file, written when the case runs (the work directory exists only then). */
  const file = (name: string, values: unknown) => () => ['-f', valuesFile(name, values)];
  const sidecar = (name: string, securityContext: object) => file(name, { sidecars: [{ name: 's', image: 'x:1', securityContext }] });
  const sc = { runAsNonRoot: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } };
  const init = (name: string, extra: object) => file(name, { initContainers: [{ name: 'i', image: 'x:1', securityContext: sc, ...extra }] });
  it.each([
    // resources
    ['issue', ['--set', 'resources.limits.memory=lots'], 'memory'],
    ['issue', ['--set', 'resources.requests.cpu=fast'], 'cpu'],
    ['issue', ['--set', 'resources.requests.memory=128mb'], 'memory'],
    ['issue', ['--set', 'migrations.resources.limits.memory=1.5m'], 'memory'],
    ['preflight', ['--set', 'delivery.resources.limits.memory=big'], 'memory'],
    // shutdown: preStop + drain (+ work in flight) longer than the grace period
    ['issue', ['--set', 'terminationGracePeriodSeconds=10'], 'terminationGracePeriodSeconds'],
    ['gateway', ['--set', 'preStopSleepSeconds=25'], 'terminationGracePeriodSeconds'],
    ['delivery', ['--set-string', 'config.DELIVERY_ATTEMPT_TIMEOUT_MS=30000'], 'DELIVERY_ATTEMPT_TIMEOUT_MS'],
    ['integration', ['--set-string', 'config.INTEGRATION_CALL_TIMEOUT_MS=20000'], 'INTEGRATION_CALL_TIMEOUT_MS'],
    ['preflight', ['--set', 'integration.terminationGracePeriodSeconds=40'], 'terminationGracePeriodSeconds'],
    // autoscaling
    ['issue', ['--set', 'autoscaling.enabled=true', '--set', 'autoscaling.minReplicas=5', '--set', 'autoscaling.maxReplicas=3'], 'minReplicas'],
    ['delivery', ['--set', 'autoscaling.enabled=true', '--set', 'keda.enabled=true'], 'keda.enabled'],
    ['delivery', ['--set', 'keda.enabled=true', '--set', 'keda.minReplicas=9'], 'keda.minReplicas'],
    // security contexts (the "restricted" level)
    ['issue', ['--set', 'securityContext.privileged=true'], 'privileged'],
    ['issue', ['--set', 'securityContext.allowPrivilegeEscalation=true'], 'allowPrivilegeEscalation'],
    ['issue', ['--set', 'securityContext.runAsUser=0'], 'runAsUser'],
    ['issue', ['--set', 'podSecurityContext.runAsUser=0'], 'runAsUser'],
    ['issue', ['--set', 'podSecurityContext.runAsNonRoot=false'], 'runAsNonRoot'],
    ['issue', ['--set', 'securityContext.capabilities.add[0]=NET_ADMIN'], 'add'],
    ['issue', sidecar('sidecar-privileged', { privileged: true, runAsNonRoot: true, allowPrivilegeEscalation: false }), 'privileged'],
    ['issue', sidecar('sidecar-escalation', { runAsNonRoot: true }), 'allowPrivilegeEscalation'],
    ['issue', file('sidecar-nosc', { sidecars: [{ name: 's', image: 'x:1' }] }), 'securityContext'],
    ['issue', ['--set', 'securityContext.capabilities.drop=null'], 'drop'],
    ['issue', ['--set', 'securityContext.capabilities.drop[0]=NET_RAW'], 'drop'],
    ['issue', ['--set', 'securityContext.seccompProfile.type=Unconfined'], 'seccompProfile'],
    ['issue', ['--set', 'podSecurityContext.seccompProfile=null'], 'seccompProfile'],
    ['issue', ['--set', 'securityContext.windowsOptions.hostProcess=true'], 'hostProcess'],
    ['issue', file('sysctl-unsafe', { podSecurityContext: { sysctls: [{ name: 'kernel.msgmax', value: '65536' }] } }), 'sysctls'],
    ['issue', sidecar('sidecar-nocaps', { runAsNonRoot: true, allowPrivilegeEscalation: false }), 'capabilities'],
    ['issue', sidecar('sidecar-unconfined', { ...sc, seccompProfile: { type: 'Unconfined' } }), 'seccompProfile'],
    ['issue', sidecar('sidecar-root', { ...sc, runAsUser: 0 }), 'runAsUser'],
    ['issue', file('sidecar-hostport', { sidecars: [{ name: 's', image: 'x:1', securityContext: sc, ports: [{ containerPort: 9901, hostPort: 9901 }] }] }), 'hostPort'],
    ['issue', init('init-privileged', { securityContext: { ...sc, privileged: true } }), 'privileged'],
    ['issue', init('init-escalation', { securityContext: { ...sc, allowPrivilegeEscalation: true } }), 'allowPrivilegeEscalation'],
    ['issue', init('init-seccomp', { securityContext: { ...sc, seccompProfile: { type: 'Unconfined' } } }), 'seccompProfile'],
    ['issue', file('volume-hostpath', { extraVolumes: [{ name: 'host', hostPath: { path: '/var/run' } }] }), 'hostPath'],
    ['issue', file('volume-nfs', { extraVolumes: [{ name: 'share', nfs: { server: 'nfs', path: '/' } }] }), 'nfs'],
    ['preflight', file('umbrella-hostpath', { issue: { extraVolumes: [{ name: 'host', hostPath: { path: '/' } }] } }), 'hostPath'],
    // image tags
    ['issue', ['--set', 'image.tag=1 0'], 'tag'],
    ['issue', ['--set', 'image.tag=v1:2'], 'tag'],
    ['preflight', ['--set', 'global.imageTag=1 0'], 'imageTag'],
    // extras' shapes
    ['issue', file('mount-nopath', { extraVolumeMounts: [{ name: 'pg-ca' }] }), 'mountPath'],
    ['issue', file('volume-noname', { extraVolumes: [{ secret: { secretName: 'x' } }] }), 'name'],
    ['issue', file('envfrom-bad', { extraEnvFrom: [{ name: 'x' }] }), 'extraEnvFrom'],
    ['issue', file('labels-bad', { podLabels: { team: 1 } }), 'team'],
    ['issue', file('annotations-bad', { podAnnotations: { 'sidecar.istio.io/inject': false } }), 'podAnnotations'],
    // the admin API stays off the public ingress
    ['gateway', file('admin-public', { ingress: { enabled: true, paths: [{ path: '/api/v1' }, { path: '/admin/v1' }] } }), 'paths'],
    ['gateway', file('admin-same-class', { ingress: { enabled: true, className: 'nginx' }, adminIngress: { enabled: true, className: 'nginx' } }), 'adminIngress'],
    // ...nor through a path /admin/v1 starts with, a pattern, or a controller-defined match
    ...['/', '/a', '/admin', '/Admin/v1', '/admin/v1/', '/.*', '/api/v1(/|$)'].map((path, i) => ['gateway', file(`admin-prefix-${i}`, { ingress: { enabled: true, paths: [{ path: '/api/v1' }, { path }] } }), 'path'] as [string, () => string[], string]),
    ['gateway', file('admin-impl-specific', { ingress: { enabled: true, paths: [{ path: '/api/v1', pathType: 'ImplementationSpecific' }] } }), 'pathType'],
    ['preflight', file('admin-root-umbrella', { gateway: { ingress: { enabled: true, paths: [{ path: '/' }] } } }), 'path'],
    // independent deploys and the stream
    ['preflight', ['--set', 'global.instance=Preflight_1'], 'instance'],
    ['preflight', ['--set', 'global.events.replicas=7'], 'replicas'],
    ['preflight', ['--set', 'global.events.provisioning=nack'], 'provisioning'],
    ['issue', ['--set', 'global.services.campaign.url=campaign:8081'], 'url'],
    ['issue', ['--set', 'migrations.databaseUrlSecret.key=bad key'], 'key'],
    ['issue', ['--set', 'monitoringApi=yes'], 'monitoringApi'],
    ...SCHEMA_REFUSALS,
  ] as Array<[string, string[] | (() => string[]), string]>)('%s refuses %j', async (chart, args, word) => {
    await expect(template(chart, typeof args === 'function' ? args() : args)).rejects.toThrow(word);
  });

  it('the shipped defaults and examples pass all of these checks', async () => {
    for (const s of SERVICES) {
      expect((await template(s, MONITORING)).length, s).toBeGreaterThan(5);
      expect((await template(s, ['-f', productionSlice(s), ...MONITORING])).length, s).toBeGreaterThan(5);
    }
  });
});

describe('finding 3: independent deploys', () => {
  it('a service released alone renders the same names, selectors and URLs as in the umbrella, whatever the release name', async () => {
    const umbrella = await template('preflight', [], 'preflight');
    for (const s of SERVICES) {
      const alone = await template(s, [], `preflight-${s}`);
      const other = await template(s, [], 'team-x');
      for (const kind of ['Deployment', 'Service', 'ConfigMap', 'PodDisruptionBudget', 'NetworkPolicy', 'ServiceAccount']) {
        const names = (objs: K8sObject[]) => objs.filter((o) => o.kind === kind && !hook(o)).map((o) => o.metadata.name).sort();
        expect(names(alone), `${s} ${kind}`).toEqual([`preflight-${s}`]);
        expect(names(other), `${s} ${kind}`).toEqual([`preflight-${s}`]);
        expect(names(umbrella), kind).toContain(`preflight-${s}`);
      }
      const spec = (objs: K8sObject[]) => find(objs, 'Deployment', `preflight-${s}`)!.spec.selector;
      expect(spec(alone), s).toEqual(spec(umbrella));
      expect(find(alone, 'Service', `preflight-${s}`)!.spec.selector, s).toEqual(find(umbrella, 'Service', `preflight-${s}`)!.spec.selector);
      // the same configuration, URLs included (the stream's owner aside: the umbrella provisions it)
      const data = (objs: K8sObject[]) => ({ ...find(objs, 'ConfigMap', `preflight-${s}`)!.data, EVENTS_STREAM_MANAGED: undefined });
      expect(data(alone), s).toEqual(data(umbrella));
    }
    const issue = find(await template('issue', [], 'preflight-issue'), 'ConfigMap', 'preflight-issue')!.data!;
    expect(issue.CAMPAIGN_URL).toBe('http://preflight-campaign:8081');
    const gw = find(umbrella, 'ConfigMap', 'preflight-gateway')!.data!;
    for (const s of SERVICES.filter((x) => x !== 'gateway')) expect(gw[`${s.toUpperCase()}_URL`], s).toBe(`http://preflight-${s}:${PORTS[s]}`);
  });

  it('global.instance renames a whole installation; global.services.<name>.url points one caller elsewhere', async () => {
    const objs = await template('preflight', ['--set', 'global.instance=staging', '--set', 'global.services.issue.url=http://issue.other-ns.svc:8082']);
    expect(objs.filter((o) => o.kind === 'Deployment').map((d) => d.metadata.name).sort()).toEqual(SERVICES.map((s) => `staging-${s}`).sort());
    expect(find(objs, 'ConfigMap', 'staging-gateway')!.data).toMatchObject({ CAMPAIGN_URL: 'http://staging-campaign:8081', ISSUE_URL: 'http://issue.other-ns.svc:8082' });
    expect(find(objs, 'ConfigMap', 'staging-integration')!.data!.ISSUE_URL).toBe('http://issue.other-ns.svc:8082');
    expect(find(objs, 'Deployment', 'staging-issue')!.spec.selector.matchLabels['app.kubernetes.io/instance']).toBe('staging');
  });

  it('each chart has its own version and appVersion; the umbrella pins its services at their versions', () => {
    const meta = (c: string) => parse(readFileSync(join(root, `charts/${c}/Chart.yaml`), 'utf8'));
    const umbrella = meta('preflight');
    for (const s of SERVICES) {
      const chart = meta(s);
      expect(chart.version, s).toMatch(/^\d+\.\d+\.\d+$/);
      // the chart's appVersion is the service's own version (services/<name>/package.json), its image's default tag
      expect(chart.appVersion, s).toBe(JSON.parse(readFileSync(join(root, `services/${s}/package.json`), 'utf8')).version);
      expect(umbrella.dependencies.find((d: { name: string }) => d.name === s).version, s).toBe(chart.version);
      expect(chart.dependencies.find((d: { name: string }) => d.name === 'preflight-lib').version, s).toBe(meta('preflight-lib').version);
    }
  });

  it('scripts/release-charts.ts packages every chart at its own version and prints the helm push commands', () => {
    const out = join(work, 'dist');
    const packaged = releaseCharts({ out, registry: 'oci://registry.example.com/preflight/charts' });
    expect(packaged.map((p) => p.chart)).toEqual(['preflight-lib', ...SERVICES, 'preflight']);
    for (const p of packaged) {
      const version = parse(readFileSync(join(root, `charts/${p.chart}/Chart.yaml`), 'utf8')).version;
      expect(p.file).toBe(join(out, `${p.chart}-${version}.tgz`));
      expect(existsSync(p.file), p.file).toBe(true);
      expect(p.push).toBe(`helm push ${p.file} oci://registry.example.com/preflight/charts`);
    }
    expect(readdirSync(out).sort()).toEqual(packaged.map((p) => `${p.chart}-${p.version}.tgz`).sort());
  });

  it('the stream is owned by one hook Job in the umbrella; the services only check it exists', async () => {
    for (const values of [[], ['-f', join(root, 'deploy/values-production.yaml')]]) {
      const objs = await template('preflight', values);
      const job = find(objs, 'Job', 'preflight-events-stream')!;
      const sa = find(objs, 'ServiceAccount', 'preflight-events-stream')!;
      const np = find(objs, 'NetworkPolicy', 'preflight-events-stream')!;
      for (const o of [job, sa, np]) expect(hook(o)).toBe('pre-install,pre-upgrade');
      expect(weight(sa)).toBeLessThan(weight(job));
      expect(weight(np)).toBeLessThan(weight(job));
      // before the services' migrations
      expect(weight(job)).toBeLessThan(weight(find(objs, 'Job', 'preflight-issue-migrate')));
      const c = job.spec.template.spec.containers[0];
      const env = Object.fromEntries(c.env.map((e: { name: string; value?: string }) => [e.name, e.value]));
      const prod = values.length > 0;
      expect(env).toMatchObject({ STREAM: 'PREFLIGHT_EVENTS', SUBJECTS: 'preflight.>', REPLICAS: prod ? '3' : '1', MAX_AGE: '168h', DUPE_WINDOW: '2m' });
      expect(c.env.find((e: { name: string }) => e.name === 'NATS_URL').valueFrom.secretKeyRef).toEqual({ name: 'preflight-secrets', key: 'nats-url' });
      expect(c.args[0]).toContain('nats stream add');
      expect(c.args[0]).toContain('nats stream edit');
      expect(np.spec.egress.flatMap((r: { ports: Array<{ port: number }> }) => r.ports.map((p) => p.port)).sort()).toEqual([4222, 53, 53]);
      if (prod) expect(np.spec.egress.find((r: { ports: Array<{ port: number }> }) => r.ports[0]!.port === 4222).to.length).toBeGreaterThan(0);
      for (const s of EVENT_SERVICES) {
        const data = find(objs, 'ConfigMap', `preflight-${s}`)!.data!;
        expect(data, s).toMatchObject({ EVENTS_STREAM: 'PREFLIGHT_EVENTS', EVENTS_SUBJECT_PREFIX: 'preflight', EVENTS_STREAM_REPLICAS: prod ? '3' : '1', EVENTS_STREAM_MANAGED: 'external' });
      }
      expect(find(objs, 'ConfigMap', 'preflight-webhook')!.data!.EVENTS_SUBJECT_PREFIX).toBe('preflight');
    }
    // each service its own owner: no Job, and each service manages the stream
    const own = await template('preflight', ['--set', 'global.events.provisioning=services']);
    expect(find(own, 'Job', 'preflight-events-stream')).toBeUndefined();
    for (const s of EVENT_SERVICES) expect(find(own, 'ConfigMap', `preflight-${s}`)!.data!.EVENTS_STREAM_MANAGED, s).toBe('service');
    // a chart installed alone without global.events never edits the shared stream: it only checks
    for (const s of EVENT_SERVICES) expect(find(await template(s), 'ConfigMap', `preflight-${s}`)!.data!.EVENTS_STREAM_MANAGED, s).toBe('external');
    for (const s of EVENT_SERVICES) expect(find(await template(s, ['--set', 'global.events.provisioning=services']), 'ConfigMap', `preflight-${s}`)!.data!.EVENTS_STREAM_MANAGED, s).toBe('service');
    // NACK or an operator: no Job either, and the services only check
    const ext = await template('preflight', ['--set', 'global.events.provisioning=external', '--set', 'global.events.subjectPrefix=prod']);
    expect(find(ext, 'Job', 'preflight-events-stream')).toBeUndefined();
    for (const s of EVENT_SERVICES) expect(find(ext, 'ConfigMap', `preflight-${s}`)!.data, s).toMatchObject({ EVENTS_STREAM_MANAGED: 'external', EVENTS_SUBJECT_PREFIX: 'prod' });
  });

  it('no service chart sets a stream setting of its own any more (global.events is the one place)', () => {
    for (const s of [...EVENT_SERVICES, 'webhook']) {
      const config = parse(readFileSync(join(root, `charts/${s}/values.yaml`), 'utf8')).config as Record<string, string>;
      for (const [k, v] of Object.entries(config).filter(([k]) => k.startsWith('EVENTS_'))) expect(v, `${s} ${k}`).toContain('preflight-lib.events');
      for (const k of Object.keys(production[s]?.config ?? {})) expect(k.startsWith('EVENTS_'), `deploy/values-production.yaml ${s}.config.${k}`).toBe(false);
    }
  });
});

describe('finding 8: NATS production values and helm test', () => {
  it('deploy/nats-production.yaml is a 3-node JetStream cluster with file storage and resources (official nats chart keys)', () => {
    const v = parse(readFileSync(join(root, 'deploy/nats-production.yaml'), 'utf8'));
    expect(v.config.cluster).toMatchObject({ enabled: true, replicas: 3 });
    expect(v.config.jetstream.enabled).toBe(true);
    expect(v.config.jetstream.fileStore).toMatchObject({ enabled: true, pvc: { enabled: true } });
    expect(v.config.jetstream.memoryStore.enabled).toBe(false);
    expect(v.container.merge.resources.requests).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
    expect(v.container.merge.resources.limits.memory).toBeTruthy();
    expect(v.podDisruptionBudget.enabled).toBe(true);
    // the stream asks for no more replicas than the cluster has
    expect(production.global.events.replicas).toBeLessThanOrEqual(v.config.cluster.replicas);
    expect(readFileSync(join(root, 'docs/operations.md'), 'utf8')).toContain('helm upgrade --install nats nats/nats -n nats -f deploy/nats-production.yaml');
  });

  it('every service chart has a helm test Pod that curls its Service\'s /readyz, admitted by its NetworkPolicy', async () => {
    for (const s of SERVICES) {
      for (const objs of [await template(s), await template(s, ['-f', productionSlice(s)])]) {
        const pod = find(objs, 'Pod', `preflight-${s}-test`)!;
        expect(hook(pod), s).toBe('test');
        new Pod(pod as never).validate();
        expect(pod.spec.containers[0].command.at(-1), s).toBe(`http://preflight-${s}.preflight.svc:${PORTS[s]}/readyz`);
        expect(pod.spec.containers[0].command).toContain('--fail');
        const testNp = find(objs, 'NetworkPolicy', `preflight-${s}-test`)!;
        expect(hook(testNp), s).toBe('test');
        expect(weight(testNp), s).toBeLessThan(weight(pod));
        for (const [k, v] of Object.entries(testNp.spec.podSelector.matchLabels as Record<string, string>)) expect(pod.metadata.labels?.[k], `${s} ${k}`).toBe(v);
        const own = find(objs, 'NetworkPolicy', `preflight-${s}`)!;
        const admits = own.spec.ingress.some((r: { from: Array<{ podSelector?: { matchLabels: Record<string, string> } }> }) =>
          r.from.some((p) => p.podSelector && Object.entries(p.podSelector.matchLabels).every(([k, v]) => pod.metadata.labels?.[k] === v)),
        );
        expect(admits, s).toBe(true);
        // the service's own policy does not select the test Pod (it would inherit its egress)
        expect(Object.entries(own.spec.podSelector.matchLabels as Record<string, string>).every(([k, v]) => pod.metadata.labels?.[k] === v), s).toBe(false);
      }
    }
  });
});

describe('finding 7: autoscaling on consumer lag (KEDA)', () => {
  it('is off by default; on, delivery and integration scale on their consumer lag and backlog through Prometheus', async () => {
    expect((await template('delivery')).filter((o) => o.kind === 'ScaledObject')).toEqual([]);
    for (const [s, consumer, backlog] of [
      ['delivery', 'delivery-fanout', 'webhook_deliveries_due_late'],
      ['integration', 'integration-sync', 'integration_jobs_due'],
    ] as const) {
      const objs = await template(s, ['--set', 'keda.enabled=true', '--set', 'autoscaling.enabled=false']);
      const so = find(objs, 'ScaledObject', `preflight-${s}`)!;
      expect(so.apiVersion).toBe('keda.sh/v1alpha1');
      expect(so.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: `preflight-${s}` });
      expect(find(objs, 'Deployment', `preflight-${s}`)!.spec.replicas).toBeUndefined();
      expect(objs.filter((o) => o.kind === 'HorizontalPodAutoscaler')).toEqual([]);
      expect(so.spec.minReplicaCount).toBeLessThanOrEqual(so.spec.maxReplicaCount);
      const queries = so.spec.triggers.map((t: { type: string; metadata: Record<string, unknown> }) => {
        expect(t.type).toBe('prometheus');
        // KEDA's trigger metadata is a map of strings
        for (const [k, v] of Object.entries(t.metadata)) expect(typeof v, `${s} ${k}`).toBe('string');
        expect(t.metadata.serverAddress).toMatch(/^https?:\/\//);
        return t.metadata.query as string;
      });
      expect(queries).toContain(`max(consumer_lag{namespace="preflight",service="${s}",consumer="${consumer}"})`);
      expect(queries).toContain(`max(${backlog}{namespace="preflight",service="${s}"})`);
    }
    // the umbrella passes it through
    const umbrella = await template('preflight', ['--set', 'delivery.keda.enabled=true', '--set', 'delivery.autoscaling.enabled=false']);
    expect(umbrella.filter((o) => o.kind === 'ScaledObject').map((o) => o.metadata.name)).toEqual(['preflight-delivery']);
    expect(readFileSync(join(root, 'docs/operations.md'), 'utf8')).toMatch(/## Autoscaling on consumer lag \(KEDA\)/);
  });
});

describe('finding 10: the alert rules through promtool', () => {
  const promtool = ['/usr/bin/promtool', '/usr/local/bin/promtool'].find((p) => existsSync(p)) ?? 'promtool';
  let dir = '';

  beforeAll(async () => {
    const found = spawnSync(promtool, ['--version'], { encoding: 'utf8' });
    if (found.status !== 0) throw new Error('promtool not found: apt-get install -y prometheus (.ci/run does it)');
    dir = join(work, 'rules');
    mkdirSync(dir, { recursive: true });
    const objs = await template('preflight', ['-f', join(root, 'deploy/values-production.yaml'), ...MONITORING]);
    for (const rule of objs.filter((o) => o.kind === 'PrometheusRule')) {
      const service = rule.metadata.name.replace(/^preflight-/, '');
      writeFileSync(join(dir, `${service}.full.yaml`), stringify({ groups: rule.spec.groups }));
      // promtool's unit tests compare annotations whole; they are checked elsewhere
      const bare = rule.spec.groups.map((g: { rules: Array<Record<string, unknown>> }) => ({ ...g, rules: g.rules.map(({ annotations: _a, ...r }) => r) }));
      writeFileSync(join(dir, `${service}.rules.yaml`), stringify({ groups: bare }));
    }
    for (const f of readdirSync(join(root, 'tests/charts')).filter((f) => f.endsWith('.promtest.yaml'))) copyFileSync(join(root, 'tests/charts', f), join(dir, f));
  });

  it('promtool check rules passes for every rendered PrometheusRule', () => {
    const files = readdirSync(dir).filter((f) => f.endsWith('.full.yaml'));
    expect(files.sort()).toEqual(SERVICES.map((s) => `${s}.full.yaml`).sort());
    const r = spawnSync(promtool, ['check', 'rules', ...files], { cwd: dir, encoding: 'utf8' });
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
    expect(r.stdout).toContain('SUCCESS');
  });

  it('promtool test rules passes the alerts\' unit tests (tests/charts/*.promtest.yaml), one or more for every alert', () => {
    const tests = readdirSync(dir).filter((f) => f.endsWith('.promtest.yaml'));
    expect(tests.length).toBeGreaterThan(0);
    const alerts = (f: string) => [...readFileSync(join(dir, f), 'utf8').matchAll(/^\s*(?:- )?alert(?:name)?: (Preflight\w+)$/gm)].map((m) => m[1]!);
    const tested = new Set(tests.flatMap(alerts));
    const rendered = new Set(readdirSync(dir).filter((f) => f.endsWith('.rules.yaml')).flatMap(alerts));
    expect(rendered.size).toBe(18);
    expect([...rendered].filter((a) => !tested.has(a))).toEqual([]);
    const r = spawnSync(promtool, ['test', 'rules', ...tests], { cwd: dir, encoding: 'utf8' });
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
    expect(r.stdout).toContain('SUCCESS');
  });
});
