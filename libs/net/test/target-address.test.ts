import { describe, expect, it } from 'vitest';
import { assessHost, classifyAddress, isIpLiteral, isLocalhostName, normaliseHost } from '../src/index.ts';

describe('classifyAddress', () => {
  it.each([
    ['93.184.215.14'],
    ['8.8.8.8'],
    ['1.1.1.1'],
    ['172.15.255.255'], // just below 172.16/12
    ['172.32.0.1'], // just above it
    ['100.63.255.255'], // just below 100.64/10
    ['100.128.0.1'], // just above it
    ['169.253.255.255'],
    ['11.0.0.1'],
    ['2606:4700:4700::1111'],
    ['2a00:1450:4001:82a::200e'],
    ['[2001:4860:4860::8888]'],
    ['::ffff:8.8.8.8'],
    ['::ffff:808:808'],
  ])('allows the public address %s', (address) => {
    expect(classifyAddress(address)).toMatchObject({ allowed: true });
  });

  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.1.1', 'link-local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.2.10', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['169.254.169.254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456:789a::1', 'unique-local'],
    ['fd00:ec2::254', 'metadata'],
    ['ff02::1', 'multicast'],
    ['fec0::1', 'site-local'],
    ['2001:db8::1', 'reserved'],
    ['64:ff9b::a00:1', 'NAT64'],
    ['2002:a00:1::1', '6to4'],
    ['2001:0:4136:e378::1', 'Teredo'],
    ['::7f00:1', 'IPv4-compatible'],
  ])('refuses %s (%s)', (address, reason) => {
    const verdict = classifyAddress(address);
    expect(verdict.allowed).toBe(false);
    if (!verdict.allowed) expect(verdict.reason).toContain(reason);
  });

  it.each([
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['[::ffff:10.0.0.1]', 'private'],
    ['::ffff:192.168.0.1', 'private'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:100.64.0.1', 'carrier-grade NAT'],
    ['0:0:0:0:0:ffff:172.16.0.1', 'private'],
  ])('judges the IPv4-mapped %s by its IPv4 address (%s)', (address, reason) => {
    const verdict = classifyAddress(address);
    expect(verdict.allowed).toBe(false);
    if (!verdict.allowed) {
      expect(verdict.reason).toMatch(/^an IPv4-mapped form of /);
      expect(verdict.reason).toContain(reason);
    }
  });

  it.each([['2130706433'], ['0x7f000001'], ['0177.0.0.1'], ['127.1'], ['0x7f.1']])('reads the inet_aton form %s as 127.0.0.1 and refuses it', (address) => {
    expect(classifyAddress(address)).toMatchObject({ allowed: false, address: '127.0.0.1' });
  });

  it('refuses what is not an address rather than guessing', () => {
    expect(classifyAddress('example.com')).toMatchObject({ allowed: false, reason: 'not an IP address' });
    expect(classifyAddress('')).toMatchObject({ allowed: false });
    expect(classifyAddress('999.1.1.1')).toMatchObject({ allowed: false });
  });
});

describe('host names', () => {
  it('normalises case, brackets and the trailing dot', () => {
    expect(normaliseHost('Example.COM.')).toBe('example.com');
    expect(normaliseHost('[::1]')).toBe('::1');
  });

  it('recognises IP literals', () => {
    expect(isIpLiteral('10.0.0.1')).toBe(true);
    expect(isIpLiteral('[fe80::1]')).toBe(true);
    expect(isIpLiteral('hooks.example.com')).toBe(false);
  });

  it.each(['localhost', 'LOCALHOST', 'localhost.', 'api.localhost', 'a.b.localhost.'])('treats %s as this machine', (host) => {
    expect(isLocalhostName(host)).toBe(true);
  });

  it.each(['localhost.example.com', 'mylocalhost', 'example.com'])('does not treat %s as this machine', (host) => {
    expect(isLocalhostName(host)).toBe(false);
  });
});

describe('assessHost', () => {
  it('allows a name whose every address is public', () => {
    expect(assessHost('hooks.example.com', ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'])).toEqual({ allowed: true });
  });

  it('refuses a name when any one of its addresses is not public', () => {
    const verdict = assessHost('rebind.example.com', ['93.184.215.14', '10.1.2.3']);
    expect(verdict).toEqual({ allowed: false, reason: "'rebind.example.com' resolves to 10.1.2.3, a private network address" });
  });

  it('refuses a name resolving to an IPv4-mapped loopback address', () => {
    expect(assessHost('sneaky.example.com', ['::ffff:127.0.0.1']).allowed).toBe(false);
  });

  it('refuses localhost names without looking at addresses, and names with no address', () => {
    expect(assessHost('api.localhost', ['93.184.215.14'])).toEqual({ allowed: false, reason: "'api.localhost' names this machine" });
    expect(assessHost('void.example.com', [])).toEqual({ allowed: false, reason: "'void.example.com' resolves to no address" });
  });

  it('judges an IP literal by itself', () => {
    expect(assessHost('[::1]', [])).toEqual({ allowed: false, reason: '::1 is a loopback address' });
    expect(assessHost('8.8.8.8', [])).toEqual({ allowed: true });
  });
});
