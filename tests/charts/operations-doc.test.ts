/**
 * The procedures docs/operations.md gives an SRE, held against the charts: the install's
 * dependency builds, the move of a service to its own release (every kind the charts render is
 * handed over, CRD kinds only where served), the tracing example, the Postgres CA advice, and
 * what a service chart installed alone says after the install (its NOTES.txt).
 */
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments, stringify } from 'yaml';

const run = promisify(execFile);
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SERVICES = ['gateway', 'campaign', 'issue', 'webhook', 'delivery', 'integration', 'console'] as const;
const operations = readFileSync(join(root, 'docs/operations.md'), 'utf8');

type K8sObject = { apiVersion: string; kind: string; metadata: { name: string; annotations?: Record<string, string> }; spec?: any };

let helm = '';
let work = '';

async function template(chart: string, values: unknown, args: string[] = []): Promise<K8sObject[]> {
  const file = join(work, `${chart}-values.yaml`);
  writeFileSync(file, stringify(values));
  try {
    const { stdout } = await run(helm, ['template', 'pf', `charts/${chart}`, '--namespace', 'preflight', '-f', file, ...args], { cwd: work, maxBuffer: 64 * 1024 * 1024 });
    return parseAllDocuments(stdout)
      .map((d) => d.toJS() as K8sObject | null)
      .filter((o): o is K8sObject => o !== null);
  } catch (err) {
    const e = err as { stderr?: string };
    throw new Error(`helm template ${chart} failed:\n${e.stderr ?? ''}`, { cause: err });
  }
}

/** The text of one `## ` section of docs/operations.md (up to the next one). */
function section(title: string): string {
  const start = operations.indexOf(`\n## ${title}\n`);
  expect(start, title).toBeGreaterThan(0);
  const end = operations.indexOf('\n## ', start + 1);
  return operations.slice(start, end < 0 ? undefined : end);
}

beforeAll(async () => {
  helm = execFileSync(process.execPath, [join(root, 'scripts/helm.mjs'), '--path'], { encoding: 'utf8' }).trim();
  work = mkdtempSync(join(tmpdir(), 'preflight-opsdoc-'));
  cpSync(join(root, 'charts'), join(work, 'charts'), { recursive: true, filter: (src) => !src.endsWith('.tgz') });
  for (const chart of [...SERVICES, 'preflight']) await run(helm, ['dependency', 'build', `charts/${chart}`], { cwd: work });
  // `helm template` leaves NOTES.txt out: the copy renders what it includes into a ConfigMap too.
  for (const s of ['issue', 'gateway']) writeFileSync(join(work, `charts/${s}/templates/notes-check.yaml`), 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: notes-check }\ndata:\n  notes: {{ include "preflight-lib.notes" . | toJson }}\n');
});

/** The NOTES a service chart prints after `helm install` with these values. */
async function notes(chart: string, values: unknown): Promise<string> {
  const cm = (await template(chart, values)).find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'notes-check') as { data?: { notes?: string } } | undefined;
  return cm?.data?.notes ?? '';
}

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('docs/operations.md', () => {
  it('moving a service hands over every kind its chart renders, and asks for CRD kinds only where the cluster serves them', async () => {
    const move = section('Moving a service to its own release');
    const always = move.match(/^KINDS=([a-z,.]+)$/m)?.[1]?.split(',') ?? [];
    const ifServed = move.match(/^for r in ([a-z. ]+); do\n\s+kubectl api-resources -o name \| grep -qx "\$r" && KINDS=\$KINDS,\$r\ndone$/m)?.[1]?.split(' ') ?? [];
    expect(always.length).toBeGreaterThan(0);
    const kubectlName: Record<string, string> = {
      Deployment: 'deploy',
      Service: 'svc',
      ConfigMap: 'cm',
      ServiceAccount: 'sa',
      PodDisruptionBudget: 'pdb',
      NetworkPolicy: 'networkpolicy',
      HorizontalPodAutoscaler: 'hpa',
      Ingress: 'ingress',
      ServiceMonitor: 'servicemonitors.monitoring.coreos.com',
      PrometheusRule: 'prometheusrules.monitoring.coreos.com',
      ScaledObject: 'scaledobjects.keda.sh',
    };
    const crds = new Set(['ServiceMonitor', 'PrometheusRule', 'ScaledObject']);
    // every optional object on: both Ingresses, the HPA in one render and KEDA's in another, monitoring
    const everything = { ingress: { enabled: true }, adminIngress: { enabled: true, className: 'internal' }, monitoringApi: 'always' };
    const kinds = new Set<string>();
    for (const s of SERVICES) {
      for (const scaling of [{ autoscaling: { enabled: true } }, { autoscaling: { enabled: false }, keda: { enabled: true, triggers: [{ name: 'lag', query: 'max(up)', threshold: 1 }] } }]) {
        const values = s === 'gateway' ? { ...everything, ...scaling } : { ingress: { enabled: true, hosts: [{ host: `${s}.example.com` }], paths: [{ path: `/${s}` }] }, monitoringApi: 'always', ...scaling };
        for (const o of await template(s, values)) if (!o.metadata.annotations?.['helm.sh/hook']) kinds.add(o.kind);
      }
    }
    expect([...kinds].sort()).toEqual(Object.keys(kubectlName).sort());
    for (const kind of kinds) {
      const name = kubectlName[kind]!;
      if (crds.has(kind)) {
        expect(ifServed, kind).toContain(name);
        expect(always, kind).not.toContain(name);
      } else {
        expect(always, kind).toContain(name);
      }
    }
  });

  it('the install builds every chart the umbrella depends on', () => {
    const deps = (parse(readFileSync(join(root, 'charts/preflight/Chart.yaml'), 'utf8')).dependencies as Array<{ name: string; repository: string }>).filter((d) => d.repository.startsWith('file://')).map((d) => d.name);
    expect([...deps].sort()).toEqual([...SERVICES].sort());
    const loop = section('Install').match(/^for c in ([a-z -]+); do helm dependency build charts\/\$c; done$/m)?.[1]?.split(' ') ?? [];
    expect([...loop].sort()).toEqual([...SERVICES, 'preflight'].sort());
    // the umbrella last: it packs its services' charts
    expect(loop.at(-1)).toBe('preflight');
  });

  it('the tracing example gives every service chart the OTLP settings', () => {
    const example = section('Reading a trace').match(/```yaml\n([\s\S]*?)```/)?.[1] ?? '';
    const values = parse(example) as Record<string, { extraEnv?: Array<{ name: string }> }>;
    expect(Object.keys(values).sort()).toEqual([...SERVICES].sort());
    for (const s of SERVICES) expect(values[s]?.extraEnv?.map((e) => e.name), s).toContain('OTEL_EXPORTER_OTLP_ENDPOINT');
  });

  it('a Postgres CA is named in DATABASE_URL (sslrootcert) or NODE_EXTRA_CA_CERTS, never PGSSLROOTCERT, which node-postgres ignores', () => {
    const install = section('Install');
    expect(install).toMatch(/sslmode=verify-full&sslrootcert=\/etc\/pg-ca\/ca\.crt/);
    expect(install).toContain('NODE_EXTRA_CA_CERTS');
    expect(install).not.toMatch(/extraEnv[^\n]*PGSSLROOTCERT/);
  });
});

describe('a service chart installed alone', () => {
  it('never edits the shared stream unless told to, and its NOTES say who must create it', async () => {
    const alone = await notes('issue', {});
    expect(alone).toContain('http://preflight-issue.preflight:8082');
    expect(alone).toContain('does not create or change the stream PREFLIGHT_EVENTS');
    expect(alone).toContain("nats stream add PREFLIGHT_EVENTS --subjects 'preflight.>' --replicas 1 --max-age 168h");
    const owner = await notes('issue', { global: { events: { provisioning: 'services', replicas: 3 } } });
    expect(owner).toContain('WARNING: global.events.provisioning is `services`');
    expect(owner).not.toContain('nats stream add');
    // off the stream: no word about it
    expect(await notes('gateway', {})).not.toContain('stream');
  });
});
