export { Breakers, BreakerOpen, UnhealthyResult, type BreakerOptions, type BreakerState } from './keyed-breakers.ts';
