import { onlyFrom } from '@preflight/service-auth';
import { adminListDeliveries } from './admin-list-deliveries.ts';
import { adminRecover } from './admin-recover.ts';
import { adminRedeliver } from './admin-redeliver.ts';
import { adminTestSend } from './admin-test-send.ts';
import type { Registration } from './context.ts';
import { internalEndpointStats } from './internal-endpoint-stats.ts';

export const registrations: Registration[] = [adminListDeliveries, adminRedeliver, adminRecover, adminTestSend, onlyFrom(['webhook'], internalEndpointStats)];
