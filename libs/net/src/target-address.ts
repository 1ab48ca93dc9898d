import ipaddr from 'ipaddr.js';

/**
 * Which delivery targets are public (ARCHITECTURE.md, "Delivery semantics": targets must be
 * public addresses, checked at creation and again, against the resolved address, at each
 * attempt). Pure functions with no I/O and no imports from this service, so the delivery
 * service can apply exactly the same rules; this file can move to a library as it is.
 *
 * The rule is an allow-list: an address is public only when ipaddr.js places it in no special
 * range (`unicast`). Everything else is refused with a reason a user can act on: loopback,
 * RFC 1918 private, link-local, carrier-grade NAT, multicast, unspecified, broadcast,
 * reserved/documentation ranges, IPv6 unique-local, the IPv6 forms that embed an IPv4 address
 * (IPv4-mapped ::ffff:a.b.c.d is judged by the embedded address; IPv4-compatible ::/96,
 * NAT64, 6to4 and Teredo are refused outright) and the cloud metadata endpoints.
 */

export type AddressVerdict =
  | { allowed: true; address: string }
  | { allowed: false; address: string; reason: string };

/** Instance metadata services: credentials live behind these, so they are named explicitly. */
const METADATA_ADDRESSES: ReadonlyMap<string, string> = new Map(
  [
    ['169.254.169.254', 'AWS/GCP/Azure/OpenStack'],
    ['169.254.170.2', 'AWS ECS task'],
    ['100.100.100.200', 'Alibaba Cloud'],
    ['fd00:ec2::254', 'AWS IPv6'],
  ].map(([address, cloud]) => [ipaddr.parse(address!).toString(), cloud!]),
);

/** Why each special range of ipaddr.js is refused, in words for a 422 message. */
const RANGE_REASONS: Record<string, string> = {
  unspecified: 'an unspecified address',
  broadcast: 'the broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT address (100.64.0.0/10)',
  private: 'a private network address',
  reserved: 'a reserved address',
  uniqueLocal: 'a unique-local IPv6 address (fc00::/7)',
  deprecatedSiteLocal: 'a site-local IPv6 address (fec0::/10)',
  rfc6145: 'an IPv4-translated IPv6 address',
  rfc6052: 'a NAT64 IPv6 address',
  '6to4': 'a 6to4 IPv6 address',
  teredo: 'a Teredo IPv6 address',
  discard: 'an IPv6 discard-only address',
  benchmarking: 'a benchmarking address',
};

const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

function strip(text: string): string {
  const t = text.trim();
  return t.startsWith('[') && t.endsWith(']') ? t.slice(1, -1) : t;
}

/** True when `text` is an IP address literal (IPv4 in any form inet_aton accepts, or IPv6, bracketed or not). */
export function isIpLiteral(text: string): boolean {
  return ipaddr.isValid(strip(text));
}

/**
 * Classifies one IP address. Anything that does not parse as an address is refused too, so a
 * caller can never mistake "could not tell" for "public".
 */
export function classifyAddress(text: string): AddressVerdict {
  const raw = strip(text);
  if (!ipaddr.isValid(raw)) return { allowed: false, address: raw, reason: 'not an IP address' };
  const parsed = ipaddr.parse(raw);
  const address = parsed.toString();

  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) {
      const inner = classifyAddress(v6.toIPv4Address().toString());
      return inner.allowed ? { allowed: true, address } : { allowed: false, address, reason: `an IPv4-mapped form of ${inner.reason}` };
    }
    const range = v6.range();
    if (range === 'unicast' && v6.match(IPV4_COMPATIBLE)) {
      return { allowed: false, address, reason: 'an IPv4-compatible IPv6 address (::/96)' };
    }
  }

  const cloud = METADATA_ADDRESSES.get(address);
  if (cloud) return { allowed: false, address, reason: `the ${cloud} cloud metadata address` };

  const range = parsed.range();
  if (range === 'unicast') return { allowed: true, address };
  return { allowed: false, address, reason: RANGE_REASONS[range] ?? `a special-purpose address (${range})` };
}

/** Lower-case, without brackets or the trailing root dot: the form names are compared in. */
export function normaliseHost(host: string): string {
  return strip(host).toLowerCase().replace(/\.$/, '');
}

/** `localhost` and `*.localhost` always mean this machine (RFC 6761), whatever DNS says. */
export function isLocalhostName(host: string): boolean {
  const h = normaliseHost(host);
  return h === 'localhost' || h.endsWith('.localhost');
}

export type HostVerdict = { allowed: true } | { allowed: false; reason: string };

/**
 * The verdict on a host given every address it resolves to (empty when the host is an IP
 * literal, which is then judged by itself). One non-public address refuses the host: a
 * connection may use any of them, and an attacker controls which.
 */
export function assessHost(host: string, resolved: readonly string[]): HostVerdict {
  const h = normaliseHost(host);
  if (isIpLiteral(h)) {
    const verdict = classifyAddress(h);
    return verdict.allowed ? { allowed: true } : { allowed: false, reason: `${verdict.address} is ${verdict.reason}` };
  }
  if (isLocalhostName(h)) return { allowed: false, reason: `'${h}' names this machine` };
  if (resolved.length === 0) return { allowed: false, reason: `'${h}' resolves to no address` };
  for (const address of resolved) {
    const verdict = classifyAddress(address);
    if (!verdict.allowed) return { allowed: false, reason: `'${h}' resolves to ${verdict.address}, ${verdict.reason}` };
  }
  return { allowed: true };
}
