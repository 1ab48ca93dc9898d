export { assessHost, classifyAddress, isIpLiteral, isLocalhostName, normaliseHost, type AddressVerdict, type HostVerdict } from './target-address.ts';
