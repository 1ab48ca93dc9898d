// Zod shapes of the issue service's admin entries (request and response bodies), referenced by admin/issue.ts.
export {};
