// Zod shapes of the integration service's admin entries (request and response bodies), referenced by admin/integration.ts.
export {};
