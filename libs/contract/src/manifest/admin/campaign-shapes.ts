// Zod shapes of the campaign service's admin entries (request and response bodies), referenced by admin/campaign.ts.
export {};
