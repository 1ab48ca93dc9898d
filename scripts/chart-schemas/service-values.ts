/**
 * The values schema every service chart shares (charts/<service>/values.schema.json is this plus
 * the service's own `config` keys, written by scripts/chart-schemas.ts). Edit here, then run
 * `npm run charts:schemas`.
 */
export type JsonSchema = { [key: string]: unknown };

/** Environment variable names, as `config` and `secretEnv` keys. */
export const ENV_NAME: JsonSchema = { type: 'string', pattern: '^[A-Z_][A-Z0-9_]*$' };
/** Credentials: only ever a secretKeyRef (secretEnv), never a plain `config` value. */
export const SECRET_VARS = ['DATABASE_URL', 'REDIS_URL', 'ADMIN_TOKEN', 'NATS_URL', 'WEBHOOK_SECRET_KEYS', 'INTEGRATION_SECRET_KEYS', 'SERVICE_AUTH_KEY', 'SERVICE_AUTH_PUBLIC_KEYS'];
/** What a `config` value may be in YAML: the chart renders it with `toString` (null and "" are left out). */
export const ENV_VALUE_TYPES = ['string', 'number', 'boolean', 'null'];

const str: JsonSchema = { type: 'string' };
const bool: JsonSchema = { type: 'boolean' };
const obj: JsonSchema = { type: 'object' };
const arr: JsonSchema = { type: 'array' };
const strings: JsonSchema = { type: 'array', items: str };
const int = (minimum: number): JsonSchema => ({ type: 'integer', minimum });
const port: JsonSchema = { type: 'integer', minimum: 1, maximum: 65535 };
/** A Prometheus duration (30s, 1h30m). */
const duration: JsonSchema = { type: 'string', pattern: '^([0-9]+(ms|s|m|h|d|w|y))+$' };
const severity: JsonSchema = { type: 'string', enum: ['critical', 'warning', 'info'] };
/** An SLO objective: a fraction strictly between 0 and 1. */
const objective: JsonSchema = { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 };
const whenUnsatisfiable: JsonSchema = { enum: ['ScheduleAnyway', 'DoNotSchedule'] };

/** An object whose keys are all known: a typo in a key fails `helm install`. */
function strict(properties: Record<string, JsonSchema>, required?: string[]): JsonSchema {
  return { type: 'object', additionalProperties: false, properties, ...(required ? { required } : {}) };
}

/** Kubernetes quantities: CPU in cores or millicores (`250m`, `0.5`, 2), memory and storage in bytes with a binary or decimal suffix (`128Mi`, `1G`); `lots`, `128mb` or `1.5m` of memory are refused. */
const cpuQuantity: JsonSchema = { oneOf: [{ type: 'string', pattern: '^([1-9][0-9]*m|[0-9]+(\\.[0-9]{1,3})?)$' }, { type: 'number', exclusiveMinimum: 0 }] };
const byteQuantity: JsonSchema = { oneOf: [{ type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$' }, { type: 'integer', minimum: 1 }] };
const anyQuantity: JsonSchema = { oneOf: [{ type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?([numkKMGTPE]|[KMGTPE]i)?$' }, { type: 'number', minimum: 0 }] };
const quantities: JsonSchema = { type: 'object', properties: { cpu: cpuQuantity, memory: byteQuantity, 'ephemeral-storage': byteQuantity }, additionalProperties: anyQuantity };
const resources = strict({ requests: quantities, limits: quantities }, ['requests', 'limits']);

/**
 * The "restricted" Pod Security level, as far as a schema can hold it, for the service's container
 * and every initContainers/sidecars entry: not privileged, no privilege escalation, never root,
 * every capability dropped (only NET_BIND_SERVICE added back), seccomp RuntimeDefault or Localhost
 * (the pod's applies to a container that sets none), no host process, /proc or SELinux user/role.
 */
const seccompProfile: JsonSchema = strict({ type: { enum: ['RuntimeDefault', 'Localhost'] }, localhostProfile: str }, ['type']);
const seLinuxOptions: JsonSchema = {
  type: 'object',
  properties: { type: { enum: ['', 'container_t', 'container_init_t', 'container_kvm_t', 'container_engine_t'] } },
  not: { anyOf: [{ required: ['user'] }, { required: ['role'] }] },
};
const noHostProcess: JsonSchema = { type: 'object', properties: { hostProcess: { enum: [false] } } };
const containerSecurityContext: JsonSchema = {
  type: 'object',
  required: ['allowPrivilegeEscalation', 'runAsNonRoot', 'capabilities'],
  properties: {
    privileged: { enum: [false] },
    allowPrivilegeEscalation: { enum: [false] },
    runAsNonRoot: { enum: [true] },
    runAsUser: { type: 'integer', minimum: 1 },
    capabilities: {
      type: 'object',
      required: ['drop'],
      properties: { add: { type: 'array', items: { enum: ['NET_BIND_SERVICE'] } }, drop: { type: 'array', items: str, contains: { const: 'ALL' } } },
    },
    seccompProfile,
    procMount: { enum: ['Default'] },
    seLinuxOptions,
    windowsOptions: noHostProcess,
  },
};
/** The sysctls the baseline level allows ("safe": namespaced, isolated per pod). */
const SAFE_SYSCTLS = ['kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.ip_unprivileged_port_start', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range', 'net.ipv4.ip_local_reserved_ports', 'net.ipv4.tcp_keepalive_time', 'net.ipv4.tcp_fin_timeout', 'net.ipv4.tcp_keepalive_intvl', 'net.ipv4.tcp_keepalive_probes'];
const podSecurityContext: JsonSchema = {
  type: 'object',
  required: ['runAsNonRoot', 'seccompProfile'],
  properties: {
    runAsNonRoot: { enum: [true] },
    runAsUser: { type: 'integer', minimum: 1 },
    seccompProfile,
    seLinuxOptions,
    windowsOptions: noHostProcess,
    sysctls: { type: 'array', items: { type: 'object', required: ['name'], properties: { name: { enum: SAFE_SYSCTLS } } } },
  },
};
/** A label value or annotation map: string values (YAML `true` or 1 would not reach the API as a string). */
const stringMap: JsonSchema = { type: 'object', additionalProperties: { type: 'string' } };
const labelMap: JsonSchema = {
  type: 'object',
  propertyNames: { pattern: '^([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$' },
  additionalProperties: { type: 'string', pattern: '^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$' },
};
const dnsName: JsonSchema = { type: 'string', pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', maxLength: 63 };
/** Containers the chart takes as given (initContainers, sidecars): named, with an image and a hardened securityContext, and no host port. */
const container: JsonSchema = {
  type: 'object',
  required: ['name', 'image', 'securityContext'],
  properties: {
    name: dnsName,
    image: { type: 'string', minLength: 1 },
    securityContext: containerSecurityContext,
    ports: { type: 'array', items: { type: 'object', properties: { hostPort: { enum: [0] }, hostIP: { enum: [''] } } } },
  },
};
const envVar: JsonSchema = { type: 'object', required: ['name'], properties: { name: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_.-]*$' } } };
const envFromSource: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { prefix: str, configMapRef: { type: 'object', required: ['name'] }, secretRef: { type: 'object', required: ['name'] } },
  oneOf: [{ required: ['configMapRef'] }, { required: ['secretRef'] }],
};
/** The volume sources the "restricted" level allows (no hostPath, no network or node-local storage plugins), one per volume. */
const VOLUME_SOURCES = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret'];
const volume: JsonSchema = {
  type: 'object',
  required: ['name'],
  minProperties: 2,
  maxProperties: 2,
  additionalProperties: false,
  properties: { name: dnsName, ...Object.fromEntries(VOLUME_SOURCES.map((source) => [source, obj])) },
};
const volumeMount: JsonSchema = { type: 'object', required: ['name', 'mountPath'], properties: { name: dnsName, mountPath: { type: 'string', pattern: '^/' }, readOnly: bool, subPath: str } };
/** An image tag as registries accept it: `1.4.0`, `dev`, `1.4.0-rc.1` (not `1 0`, not `v1:2`). Empty: global.imageTag, then appVersion. */
const imageTag: JsonSchema = { type: ['string', 'number'], pattern: '^([A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?$' };
const ingressPath: JsonSchema = strict({ path: { type: 'string', pattern: '^/' }, pathType: { enum: ['Prefix', 'Exact', 'ImplementationSpecific'] } }, ['path']);
/**
 * A public Ingress path: literal segments (`/api/v1`; no regex a controller could read wider), Prefix
 * or Exact (ImplementationSpecific lets a controller match more), never the admin API's port share:
 * not a path under /admin, nor one /admin/v1 starts with (`/`, `/a`, `/admin`), which would route it
 * too (the gateway serves both on one port). preflight-lib's _ingress.tpl refuses the same.
 */
const publicIngressPath: JsonSchema = strict(
  {
    path: {
      type: 'string',
      pattern: '^(/[A-Za-z0-9_~-]+)+/?$',
      not: { pattern: '^/([Aa]([Dd]([Mm]([Ii]([Nn].*)?)?)?)?)?$' },
      description: 'A public prefix (/api/v1): literal segments, not under /admin and not a prefix of /admin/v1 (/, /a, /admin).',
    },
    pathType: { enum: ['Prefix', 'Exact'] },
  },
  ['path'],
);
const ingressShape = (paths: JsonSchema, extra: Record<string, JsonSchema> = {}) =>
  strict({
    enabled: bool,
    className: str,
    annotations: stringMap,
    hosts: { type: 'array', items: strict({ host: str }) },
    paths,
    tls: { type: 'array', items: strict({ secretName: str, hosts: strings }) },
    ...extra,
  });
const probe = strict({ periodSeconds: int(1), timeoutSeconds: int(1), failureThreshold: int(1) }, ['periodSeconds', 'timeoutSeconds', 'failureThreshold']);
const egressPort = strict({ enabled: bool, port, to: arr }, ['enabled', 'port']);

/** One alert's settings: on/off, how long before it fires, severity, and its own thresholds. */
const rule = (extra: Record<string, JsonSchema> = {}) => strict({ enabled: bool, for: duration, severity, ...extra }, ['enabled']);
const threshold = { threshold: { type: 'number', minimum: 0 } };

/** `config` without the service's own keys (scripts/chart-schemas.ts adds them as `properties`). */
export const configSchema: JsonSchema = {
  type: 'object',
  propertyNames: ENV_NAME,
  additionalProperties: { type: ENV_VALUE_TYPES },
  not: { anyOf: SECRET_VARS.map((name) => ({ required: [name] })) },
  description: `Plain environment. Credentials (${SECRET_VARS.join(', ')}) are rejected here: use secretEnv.`,
};

export const serviceValuesSchema: JsonSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'Preflight service chart values',
  description: 'Generated by scripts/chart-schemas.ts (npm run charts:schemas) from scripts/chart-schemas/service-values.ts and the service\'s config shape: do not edit.',
  type: 'object',
  additionalProperties: false,
  required: ['component', 'image', 'containerPort', 'resources', 'secretEnv'],
  properties: {
    enabled: bool,
    global: {
      type: 'object',
      properties: {
        instance: { type: 'string', pattern: '^[a-z]([-a-z0-9]*[a-z0-9])?$', maxLength: 40 },
        imageTag,
        monitoringApi: { enum: ['', 'auto', 'always'] },
        services: { type: 'object', additionalProperties: strict({ url: { type: 'string', pattern: '^https?://[^\\s]+$' } }) },
        events: strict({
          stream: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
          subjectPrefix: { type: 'string', pattern: '^[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*$' },
          replicas: { type: 'integer', minimum: 1, maximum: 5 },
          maxAgeHours: { type: 'integer', minimum: 1, maximum: 8760 },
          provisioning: { enum: ['services', 'umbrella', 'external'] },
          duplicateWindow: duration,
        }),
      },
    },
    component: { type: 'string', pattern: '^[a-z][a-z0-9-]*$' },
    nameOverride: str,
    fullnameOverride: str,
    image: strict(
      {
        registry: str,
        repository: { type: 'string', minLength: 1 },
        tag: imageTag,
        digest: { type: 'string', pattern: '^(sha256:[a-f0-9]{64})?$' },
        pullPolicy: { enum: ['Always', 'IfNotPresent', 'Never'] },
      },
      ['repository'],
    ),
    imagePullSecrets: strings,
    replicaCount: int(0),
    containerPort: port,
    config: configSchema,
    existingSecret: str,
    secretEnv: { type: 'object', propertyNames: ENV_NAME, additionalProperties: { type: 'string', minLength: 1 } },
    extraEnv: { type: 'array', items: envVar },
    extraEnvFrom: { type: 'array', items: envFromSource },
    extraVolumes: { type: 'array', items: volume },
    extraVolumeMounts: { type: 'array', items: volumeMount },
    initContainers: { type: 'array', items: container },
    sidecars: { type: 'array', items: container },
    resources,
    probes: strict({ startup: probe, readiness: probe, liveness: probe }, ['startup', 'readiness', 'liveness']),
    preStopSleepSeconds: int(0),
    terminationGracePeriodSeconds: int(0),
    shutdown: strict({ drainSeconds: int(0), inFlightTimeoutKey: ENV_NAME, inFlightTimeouts: int(1), inFlightTimeoutDefaultMs: int(0) }),
    tmpSizeLimit: str,
    podSecurityContext,
    securityContext: containerSecurityContext,
    podAnnotations: stringMap,
    podLabels: labelMap,
    nodeSelector: obj,
    tolerations: arr,
    affinity: obj,
    priorityClassName: str,
    topologySpread: strict({ enabled: bool, maxSkew: int(1), zoneWhenUnsatisfiable: whenUnsatisfiable, hostWhenUnsatisfiable: whenUnsatisfiable }),
    serviceAccount: strict({ create: bool, name: str, annotations: obj, automountToken: bool }),
    service: strict({ type: { enum: ['ClusterIP', 'NodePort', 'LoadBalancer'] }, port, annotations: obj }),
    autoscaling: strict({
      enabled: bool,
      minReplicas: int(1),
      maxReplicas: int(1),
      targetCPUUtilizationPercentage: { type: 'integer', minimum: 1, maximum: 100 },
      targetMemoryUtilizationPercentage: { type: ['integer', 'null'], minimum: 1, maximum: 100 },
      scaleDownStabilizationSeconds: int(0),
    }),
    pdb: strict({ enabled: bool, maxUnavailable: { type: ['integer', 'string'] }, minAvailable: { type: ['integer', 'string', 'null'] } }),
    networkPolicy: strict({
      enabled: bool,
      ingressFromComponents: strings,
      metricsFrom: arr,
      extraIngress: arr,
      egress: strict({ dns: strict({ enabled: bool, to: arr }), postgres: egressPort, redis: egressPort, nats: egressPort }),
      egressToComponents: { type: 'array', items: strict({ name: str, port }, ['name', 'port']) },
      extraEgress: arr,
    }),
    migrations: strict({
      enabled: bool,
      backoffLimit: int(0),
      activeDeadlineSeconds: int(1),
      resources,
      podAnnotations: stringMap,
      podLabels: labelMap,
      serviceAccount: strict({ create: bool, name: str, annotations: stringMap }),
      networkPolicy: strict({ enabled: bool, extraEgress: arr }),
      databaseUrlSecret: strict({ name: str, key: { type: 'string', pattern: '^([-._a-zA-Z0-9]+)?$' } }),
      // extraVolumes (and their mounts) the Job leaves out: files it never reads, such as NATS credentials.
      omitExtraVolumes: { type: 'array', items: dnsName },
    }),
    ingress: ingressShape({ type: 'array', items: publicIngressPath }),
    adminIngress: ingressShape({ type: 'array', items: ingressPath }, { allowSameClass: bool }),
    tests: strict({ enabled: bool, image: { type: 'string', minLength: 1 }, podAnnotations: stringMap }),
    keda: strict({
      enabled: bool,
      minReplicas: int(0),
      maxReplicas: int(1),
      prometheusAddress: { type: 'string', pattern: '^https?://' },
      pollingInterval: int(1),
      cooldownPeriod: int(0),
      triggers: {
        type: 'array',
        items: strict({ name: dnsName, query: { type: 'string', minLength: 1 }, threshold: { type: ['number', 'string'] }, activationThreshold: { type: ['number', 'string'] } }, ['name', 'query', 'threshold']),
      },
    }),
    monitoringApi: { enum: ['', 'auto', 'always'] },
    serviceMonitor: strict({ enabled: bool, interval: duration, scrapeTimeout: duration, labels: obj }),
    prometheusRule: strict({
      enabled: bool,
      labels: obj,
      runbookBaseUrl: str,
      slo: strict({
        routeRegex: str,
        availability: strict({ enabled: bool, objective, severity }),
        latency: strict({ enabled: bool, objective, thresholdSeconds: { type: ['string', 'number'] }, severity }),
      }),
      rules: strict({
        serviceDown: rule(),
        rateLimitedSpike: rule({ ratio: { type: 'number' }, minRatePerSecond: { type: 'number' } }),
        rateLimiterDegraded: rule(),
        circuitBreakerOpen: rule(),
        outboxBacklogAge: rule({ thresholdSeconds: { type: 'number', exclusiveMinimum: 0 } }),
        consumerLag: rule(threshold),
        webhookFailureRatio: rule({ ratio: { type: 'number', exclusiveMinimum: 0, maximum: 1 }, minFailures: { type: 'number', minimum: 0 } }),
        webhookEndpointsAutoDisabled: rule(threshold),
        deliveryBreakersOpen: rule(threshold),
        webhookDeliveriesLate: rule(threshold),
        integrationJobsBacklog: rule(threshold),
        integrationConnectionsNeedAttention: rule(threshold),
        integrationBreakersOpen: rule(threshold),
        integrationJobFailures: rule({ ratio: { type: 'number', exclusiveMinimum: 0, maximum: 1 }, minFailures: { type: 'number', minimum: 0 } }),
        secretsUndecryptable: rule(),
        webhookDeliveriesHeldForKey: rule(),
      }),
    }),
    'preflight-lib': { type: 'object', description: 'Values of the library dependency (unused; Helm adds the key).' },
  },
};
