// Zod shapes of the gateway service's admin entries (request and response bodies), referenced by admin/gateway.ts.
export {};
