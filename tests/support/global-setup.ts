import type { TestProject } from 'vitest/node';
import { startSystem, type SystemInfo } from './system.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    system: SystemInfo;
  }
}

/**
 * One running system shared by the end-to-end files; each test makes its own organisation.
 * The delivery service runs as the chart's 2 replicas: what one replica learns (a breaker, an
 * endpoint change) must reach the other.
 */
export default async function setup(project: TestProject) {
  const sys = await startSystem({}, { replicas: { delivery: 2 } });
  project.provide('system', { gatewayUrl: sys.gatewayUrl, adminToken: sys.adminToken, serviceUrls: sys.serviceUrls });
  return async () => {
    await sys.stop();
  };
}
