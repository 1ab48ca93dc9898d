// Zod shapes of the webhook service's admin entries (request and response bodies), referenced by admin/webhook.ts.
export {};
