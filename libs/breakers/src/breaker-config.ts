import { env } from '@preflight/config';
import type { BreakerOptions } from './keyed-breakers.ts';

type BreakerVars<P extends string> = Record<`${P}_BREAKER_RESET_MS` | `${P}_BREAKER_VOLUME_THRESHOLD` | `${P}_BREAKER_ERROR_PERCENT` | `${P}_BREAKER_WINDOW_MS`, ReturnType<typeof env.int>>;

/**
 * The environment of a service's per-key breakers, `<PREFIX>_BREAKER_*`: opens when more than
 * ERROR_PERCENT of at least VOLUME_THRESHOLD calls in WINDOW_MS got no usable answer, half-opens
 * after RESET_MS. One declaration for every service that has them (delivery, integration).
 */
export function breakerConfigShape<P extends string>(prefix: P): BreakerVars<P> {
  return {
    [`${prefix}_BREAKER_RESET_MS`]: env.int(30_000, { min: 10, max: 3_600_000 }),
    [`${prefix}_BREAKER_VOLUME_THRESHOLD`]: env.int(5, { min: 1, max: 10_000 }),
    [`${prefix}_BREAKER_ERROR_PERCENT`]: env.int(50, { min: 1, max: 100 }),
    [`${prefix}_BREAKER_WINDOW_MS`]: env.int(60_000, { min: 1_000, max: 3_600_000 }),
  } as BreakerVars<P>;
}

/** The breakers' thresholds from a config read with `breakerConfigShape(prefix)`. */
export function breakerThresholds<P extends string>(config: Record<`${P}_BREAKER_${'RESET_MS' | 'VOLUME_THRESHOLD' | 'ERROR_PERCENT' | 'WINDOW_MS'}`, number>, prefix: P): Pick<BreakerOptions, 'resetTimeoutMs' | 'volumeThreshold' | 'errorThresholdPercentage' | 'rollingWindowMs'> {
  return {
    resetTimeoutMs: config[`${prefix}_BREAKER_RESET_MS`],
    volumeThreshold: config[`${prefix}_BREAKER_VOLUME_THRESHOLD`],
    errorThresholdPercentage: config[`${prefix}_BREAKER_ERROR_PERCENT`],
    rollingWindowMs: config[`${prefix}_BREAKER_WINDOW_MS`],
  };
}
