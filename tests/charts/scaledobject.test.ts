/**
 * The KEDA ScaledObjects the charts render, validated as the cluster would take them.
 * kubernetes-models has no KEDA package, so the shape is KEDA's CRD (keda.sh/v1alpha1
 * ScaledObject, KEDA 2.x) written out below, strict where the CRD is structural (an unknown field
 * would be pruned without a word); its HPA behaviour block is autoscaling/v2's, checked with
 * kubernetes-models' HorizontalPodAutoscaler. Plus what KEDA's admission webhook refuses
 * (min above max) and what the prometheus scaler needs.
 */
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Ajv } from 'ajv';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

const run = promisify(execFile);
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

type K8sObject = { apiVersion: string; kind: string; metadata: { name: string }; spec?: any };

const str = { type: 'string' };
const int32 = { type: 'integer', minimum: -2147483648, maximum: 2147483647 };
/** keda.sh/v1alpha1 ScaledObject, after KEDA's CRD (config/crd/bases/keda.sh_scaledobjects.yaml). */
const SCALED_OBJECT = {
  type: 'object',
  required: ['apiVersion', 'kind', 'metadata', 'spec'],
  properties: {
    apiVersion: { const: 'keda.sh/v1alpha1' },
    kind: { const: 'ScaledObject' },
    metadata: { type: 'object', required: ['name', 'namespace'], properties: { name: { type: 'string', pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', maxLength: 63 } } },
    spec: {
      type: 'object',
      additionalProperties: false,
      required: ['scaleTargetRef', 'triggers'],
      properties: {
        scaleTargetRef: { type: 'object', additionalProperties: false, required: ['name'], properties: { apiVersion: str, kind: str, name: str, envSourceContainerName: str } },
        minReplicaCount: int32,
        maxReplicaCount: int32,
        idleReplicaCount: int32,
        pollingInterval: int32,
        cooldownPeriod: int32,
        initialCooldownPeriod: int32,
        fallback: { type: 'object', required: ['failureThreshold', 'replicas'], properties: { failureThreshold: int32, replicas: int32 } },
        advanced: {
          type: 'object',
          additionalProperties: false,
          properties: {
            restoreToOriginalReplicaCount: { type: 'boolean' },
            horizontalPodAutoscalerConfig: { type: 'object', additionalProperties: false, properties: { name: str, behavior: { type: 'object' } } },
            scalingModifiers: { type: 'object' },
          },
        },
        triggers: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['type', 'metadata'],
            properties: {
              type: str,
              name: str,
              metadata: { type: 'object', additionalProperties: { type: 'string' } },
              authenticationRef: { type: 'object', required: ['name'], properties: { name: str, kind: { enum: ['TriggerAuthentication', 'ClusterTriggerAuthentication'] } } },
              metricType: { enum: ['AverageValue', 'Value', 'Utilization'] },
              useCachedMetrics: { type: 'boolean' },
            },
          },
        },
      },
    },
  },
};

let helm = '';
let work = '';

async function template(chart: string, args: string[]): Promise<K8sObject[]> {
  const { stdout } = await run(helm, ['template', 'pf', `charts/${chart}`, '--namespace', 'preflight', ...args], { cwd: work, maxBuffer: 64 * 1024 * 1024 });
  return parseAllDocuments(stdout)
    .map((d) => d.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null);
}

beforeAll(async () => {
  helm = execFileSync(process.execPath, [join(root, 'scripts/helm.mjs'), '--path'], { encoding: 'utf8' }).trim();
  work = mkdtempSync(join(tmpdir(), 'preflight-keda-'));
  cpSync(join(root, 'charts'), join(work, 'charts'), { recursive: true, filter: (src) => !src.endsWith('.tgz') });
  for (const chart of ['gateway', 'campaign', 'issue', 'webhook', 'delivery', 'integration', 'console', 'preflight']) await run(helm, ['dependency', 'build', `charts/${chart}`], { cwd: work });
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('KEDA ScaledObjects', () => {
  const validate = new Ajv({ strict: false, allErrors: true }).compile(SCALED_OBJECT);

  it('are valid ScaledObjects for delivery and integration (their shipped triggers), alone and in the umbrella with the production values', async () => {
    const on = ['--set', 'keda.enabled=true', '--set', 'autoscaling.enabled=false'];
    const renders: Array<[string, K8sObject[]]> = [
      ['delivery', await template('delivery', on)],
      ['integration', await template('integration', on)],
      // a service without shipped triggers, given one of its own
      ['issue', await template('issue', [...on, '--set', 'keda.triggers[0].name=lag', '--set', 'keda.triggers[0].query=max(consumer_lag{<selector>})', '--set', 'keda.triggers[0].threshold=100'])],
      ['umbrella', await template('preflight', ['-f', join(root, 'deploy/values-production.yaml'), ...['delivery', 'integration'].flatMap((s) => ['--set', `${s}.keda.enabled=true`, '--set', `${s}.autoscaling.enabled=false`])])],
    ];
    let seen = 0;
    for (const [where, objs] of renders) {
      for (const so of objs.filter((o) => o.kind === 'ScaledObject')) {
        seen++;
        const name = `${where} ${so.metadata.name}`;
        expect(validate(so), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
        expect(so.spec.minReplicaCount, name).toBeLessThanOrEqual(so.spec.maxReplicaCount);
        expect(objs.find((o) => o.kind === 'Deployment' && o.metadata.name === so.spec.scaleTargetRef.name), name).toBeDefined();
        for (const t of so.spec.triggers) {
          expect(t.type, name).toBe('prometheus');
          expect(Object.keys(t.metadata).sort(), name).toEqual(expect.arrayContaining(['query', 'serverAddress', 'threshold']));
          expect(Number.isFinite(Number(t.metadata.threshold)), `${name} threshold ${t.metadata.threshold}`).toBe(true);
          expect(t.metadata.query, name).not.toContain('<selector>');
        }
        const behavior = so.spec.advanced?.horizontalPodAutoscalerConfig?.behavior;
        if (behavior) {
          const hpa = { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'x' }, spec: { scaleTargetRef: so.spec.scaleTargetRef, minReplicas: 1, maxReplicas: 2, behavior } };
          new HorizontalPodAutoscaler(hpa as never).validate();
        }
      }
    }
    expect(seen).toBe(5);
  });

  it('the schema above catches what the cluster would drop or refuse', () => {
    const good = { apiVersion: 'keda.sh/v1alpha1', kind: 'ScaledObject', metadata: { name: 'x', namespace: 'n' }, spec: { scaleTargetRef: { name: 'x' }, triggers: [{ type: 'prometheus', metadata: { threshold: '1' } }] } };
    expect(validate(good)).toBe(true);
    expect(validate({ ...good, spec: { ...good.spec, minReplicas: 1 } })).toBe(false);
    expect(validate({ ...good, spec: { ...good.spec, triggers: [{ type: 'prometheus', metadata: { threshold: 1 } }] } })).toBe(false);
    expect(validate({ ...good, spec: { scaleTargetRef: { name: 'x' }, triggers: [] } })).toBe(false);
  });
});
