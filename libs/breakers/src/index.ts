export { Breakers, BreakerOpen, UnhealthyResult, type BreakerOptions, type BreakerState } from './keyed-breakers.ts';
export { breakerConfigShape, breakerThresholds } from './breaker-config.ts';
