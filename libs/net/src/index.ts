export { assessHost, classifyAddress, isIpLiteral, isLocalhostName, normaliseHost, type AddressVerdict, type HostVerdict } from './target-address.ts';
export { createTargetChecker, systemResolver, type HostResolver, type TargetChecker } from './target-check.ts';
