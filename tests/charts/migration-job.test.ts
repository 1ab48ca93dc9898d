/**
 * The migration hook Job carries one credential, the database URL: `main.js migrate` reads only
 * the database and log settings (libs/service-kit migrate-config.ts), so the admin token, Redis,
 * NATS, the service keys and the secret key rings stay with the server pods.
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
const APP_CREDENTIALS = ['ADMIN_TOKEN', 'REDIS_URL', 'NATS_URL', 'SERVICE_AUTH_KEY', 'SERVICE_AUTH_PUBLIC_KEYS', 'WEBHOOK_SECRET_KEYS', 'INTEGRATION_SECRET_KEYS'];
const MIGRATE_ENV = ['DATABASE_URL', 'DB_POOL_MAX', 'DB_SCHEMA', 'LOG_LEVEL'];

type EnvVar = { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } };
type K8sObject = { kind: string; metadata: { name: string }; spec?: any };

let helm = '';
let work = '';

async function template(chart: string, args: string[] = []): Promise<K8sObject[]> {
  const { stdout } = await run(helm, ['template', 'pf', `charts/${chart}`, '--namespace', 'preflight', ...args], { cwd: work, maxBuffer: 64 * 1024 * 1024 });
  return parseAllDocuments(stdout)
    .map((d) => d.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null);
}

const envOf = (objs: K8sObject[], kind: string, name: string): EnvVar[] => {
  const obj = objs.find((o) => o.kind === kind && o.metadata.name === name);
  if (!obj) throw new Error(`no ${kind} ${name}`);
  return obj.spec.template.spec.containers[0].env as EnvVar[];
};
const names = (env: EnvVar[]) => env.map((e) => e.name).sort();
const secretRefs = (env: EnvVar[]) => env.filter((e) => e.valueFrom?.secretKeyRef).map((e) => e.name);

beforeAll(async () => {
  helm = execFileSync(process.execPath, [join(root, 'scripts/helm.mjs'), '--path'], { encoding: 'utf8' }).trim();
  work = mkdtempSync(join(tmpdir(), 'preflight-migration-job-'));
  cpSync(join(root, 'charts'), join(work, 'charts'), { recursive: true, filter: (src) => !src.endsWith('.tgz') });
  for (const chart of [...SERVICES, 'preflight']) await run(helm, ['dependency', 'build', `charts/${chart}`], { cwd: work });
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the migration Job', () => {
  it('gets the database URL and the settings migrate reads, none of the application credentials', async () => {
    const production = join(root, 'deploy/values-production.yaml');
    const productionValues = parse(readFileSync(production, 'utf8')) as Record<string, { extraEnv?: EnvVar[] } | undefined>;
    for (const [release, objs] of [...SERVICES.map((s) => [s, template(s)] as const), ['preflight (production)', template('preflight', ['-f', production])] as const]) {
      const rendered = await objs;
      for (const s of release.startsWith('preflight') ? SERVICES : [release]) {
        const where = `${release}: ${s}`;
        const values = parse(readFileSync(join(root, `charts/${s}/values.yaml`), 'utf8'));
        // The chart's extraEnv (delivery's NODE_OPTIONS heap limit) reaches the Job as it is.
        const extra = [...(values.extraEnv ?? []), ...(release.startsWith('preflight') ? (productionValues[s]?.extraEnv ?? []) : [])] as EnvVar[];
        const job = envOf(rendered, 'Job', `preflight-${s}-migrate`);
        expect(names(job), where).toEqual([...new Set([...MIGRATE_ENV, ...extra.map((e) => e.name)])].sort());
        expect(secretRefs(job), where).toEqual(['DATABASE_URL']);
        for (const name of APP_CREDENTIALS) expect(names(job), `${where} ${name}`).not.toContain(name);
        expect(job.find((e) => e.name === 'DB_SCHEMA')?.value, where).toBe(values.config.DB_SCHEMA);
        // the server pods keep theirs: the Job's list is shorter on purpose, not by a broken render
        const server = envOf(rendered, 'Deployment', `preflight-${s}`);
        expect(secretRefs(server).length, where).toBeGreaterThan(1);
      }
    }
  });

  it('takes DATABASE_URL from migrations.databaseUrlSecret when set, else the pods\' key', async () => {
    const ref = (objs: K8sObject[]) => envOf(objs, 'Job', 'preflight-webhook-migrate').find((e) => e.name === 'DATABASE_URL')?.valueFrom?.secretKeyRef;
    expect(ref(await template('webhook'))).toEqual({ name: 'preflight-secrets', key: 'database-url' });
    const own = await template('webhook', ['--set', 'migrations.databaseUrlSecret.key=ddl-url', '--set', 'migrations.databaseUrlSecret.name=webhook-migrator']);
    expect(ref(own)).toEqual({ name: 'webhook-migrator', key: 'ddl-url' });
    const shared = await template('webhook', ['--set', 'migrations.databaseUrlSecret.key=ddl-url', '--set', 'existingSecret=app-secrets']);
    expect(ref(shared)).toEqual({ name: 'app-secrets', key: 'ddl-url' });
  });

  it('leaves out the extraVolumes named in migrations.omitExtraVolumes (NATS credentials), keeping the rest (a Postgres CA)', async () => {
    const file = join(work, 'omit-volumes.yaml');
    writeFileSync(
      file,
      stringify({
        extraVolumes: [
          { name: 'pg-ca', secret: { secretName: 'pg-ca' } },
          { name: 'nats-creds', secret: { secretName: 'nats-creds' } },
        ],
        extraVolumeMounts: [
          { name: 'pg-ca', mountPath: '/etc/pg-ca', readOnly: true },
          { name: 'nats-creds', mountPath: '/etc/nats-creds', readOnly: true },
        ],
        migrations: { omitExtraVolumes: ['nats-creds'] },
      }),
    );
    const objs = await template('issue', ['-f', file]);
    const podOf = (kind: string, name: string) => objs.find((o) => o.kind === kind && o.metadata.name === name)!.spec.template.spec;
    const volumes = (pod: { volumes: Array<{ name: string }>; containers: Array<{ volumeMounts: Array<{ name: string }> }> }) => [pod.volumes.map((v) => v.name), pod.containers[0]!.volumeMounts.map((m) => m.name)];
    expect(volumes(podOf('Job', 'preflight-issue-migrate'))).toEqual([
      ['tmp', 'pg-ca'],
      ['tmp', 'pg-ca'],
    ]);
    expect(volumes(podOf('Deployment', 'preflight-issue'))).toEqual([
      ['tmp', 'pg-ca', 'nats-creds'],
      ['tmp', 'pg-ca', 'nats-creds'],
    ]);
    await expect(template('issue', ['--set', 'migrations.omitExtraVolumes[0]=Bad_Name'])).rejects.toThrow(/omitExtraVolumes/);
  });

  it('still gets the operator\'s extraEnv (a Postgres CA path), which is theirs to keep credential-free', async () => {
    const file = join(work, 'extra-env.yaml');
    writeFileSync(file, stringify({ extraEnv: [{ name: 'PGSSLROOTCERT', value: '/etc/pg-ca/ca.crt' }] }));
    const job = envOf(await template('issue', ['-f', file]), 'Job', 'preflight-issue-migrate');
    expect(names(job)).toEqual([...MIGRATE_ENV, 'PGSSLROOTCERT'].sort());
  });
});
