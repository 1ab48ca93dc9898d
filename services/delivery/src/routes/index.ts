import { adminListDeliveries } from './admin-list-deliveries.ts';
import type { Registration } from './context.ts';

export const registrations: Registration[] = [adminListDeliveries];
