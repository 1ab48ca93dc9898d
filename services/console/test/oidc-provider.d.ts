// oidc-provider ships no types; the test uses a handful of its calls.
declare module 'oidc-provider';
