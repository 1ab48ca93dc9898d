import type { MigrationSet } from '@preflight/db';
import * as init from './0001_init.ts';
import * as narrowDeliveries from './0002_narrow_deliveries.ts';
import * as openDeliveriesOnly from './0003_open_deliveries_only.ts';
import * as triggers from './0004_triggers.ts';
import * as parked from './0005_parked.ts';

/** Every migration of the delivery schema, in order; listed statically so bundles keep them. */
export const migrations: MigrationSet = {
  '0001_init': init,
  '0002_narrow_deliveries': narrowDeliveries,
  '0003_open_deliveries_only': openDeliveriesOnly,
  '0004_triggers': triggers,
  '0005_parked': parked,
};
