import type { TestProject } from 'vitest/node';
import { defaultReplicas, e2eReplicas, startSystem, type SystemInfo } from './system.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    system: SystemInfo;
  }
}

/**
 * One running system shared by the end-to-end files; each test makes its own organisation.
 * The delivery service runs as the chart's 2 replicas: what one replica learns (a breaker, an
 * endpoint change) must reach the other. `E2E_REPLICAS=N` (N ≥ 2) runs every service as N
 * replicas instead (docs/reliability.md, "Replicas").
 */
export default async function setup(project: TestProject) {
  const replicas = e2eReplicas() >= 2 ? defaultReplicas() : { delivery: 2 };
  const sys = await startSystem({}, { replicas });
  project.provide('system', { gatewayUrl: sys.gatewayUrl, adminToken: sys.adminToken, serviceUrls: sys.serviceUrls, serviceAuth: sys.serviceAuth });
  return async () => {
    await sys.stop();
  };
}
