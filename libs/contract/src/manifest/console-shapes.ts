// Zod shapes of the console's members API entries (request and response bodies), referenced by console.ts.
export {};
