// Zod shapes of the delivery service's admin entries (request and response bodies), referenced by admin/delivery.ts.
export {};
