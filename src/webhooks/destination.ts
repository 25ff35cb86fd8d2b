// Server-side request forgery guard for webhook URLs. A live endpoint must be https and every
// address its host resolves to must be public: not loopback, private, link-local, CGNAT,
// multicast, unspecified, documentation or otherwise reserved, in IPv4 and IPv6 (IPv4 inside
// IPv6 is judged as the IPv4 it carries). The check runs on creation and again before every
// delivery, which then connects to the very address it checked (DNS can change in between).
import { Resolver } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import type { Environment } from '../tenancy.ts';

export type AddressClass = 'public' | 'loopback' | 'internal';

/** Why a URL may not receive webhooks; the message is shown to the client. */
export class DestinationRefusedError extends Error {}

export interface DestinationPolicy {
  environment: Environment;
  /** config.webhooksAllowLoopback: test endpoints may use http and loopback addresses. */
  allowLoopback: boolean;
}

export interface Destination {
  url: URL;
  address: string;
  family: 4 | 6;
}

// IPv4 ranges that are not public unicast (IANA special-purpose registry), loopback aside.
const IPV4_INTERNAL: [string, number][] = [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['169.254.0.0', 16], // link-local, cloud metadata services
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];

function ipv4ToInt(address: string): number {
  return address.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

const IPV4_RANGES = IPV4_INTERNAL.map(([base, bits]) => ({
  base: ipv4ToInt(base),
  size: 2 ** (32 - bits),
}));

function classifyIPv4(value: number): AddressClass {
  if (value >>> 24 === 127) return 'loopback';
  for (const range of IPV4_RANGES) {
    if (value >= range.base && value < range.base + range.size) return 'internal';
  }
  return 'public';
}

/** The eight 16-bit groups of a valid IPv6 address (without zone). */
function ipv6Groups(address: string): number[] {
  let text = address;
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = ipv4ToInt(tail);
    text = `${text.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [head = '', rest] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const first = parse(head);
  const last = rest === undefined ? [] : parse(rest);
  return [...first, ...new Array<number>(8 - first.length - last.length).fill(0), ...last];
}

function classifyIPv6(address: string): AddressClass {
  // A zone index (fe80::1%eth0) only exists on link-local addresses.
  if (address.includes('%')) return 'internal';
  const g = ipv6Groups(address);
  const embeddedV4 = (g[6]! * 65536 + g[7]!) >>> 0;
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroUpTo(7) && g[7] === 1) return 'loopback'; // ::1
  if (zeroUpTo(5) && g[5] === 0xffff) return classifyIPv4(embeddedV4); // IPv4-mapped
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) {
    return classifyIPv4(embeddedV4) === 'public' ? 'public' : 'internal'; // NAT64
  }
  // Only global unicast (2000::/3) is public, less its special-purpose blocks.
  if ((g[0]! & 0xe000) !== 0x2000) return 'internal';
  if (g[0] === 0x2001 && g[1]! < 0x0200) return 'internal'; // IETF protocol assignments, Teredo
  if (g[0] === 0x2001 && g[1] === 0x0db8) return 'internal'; // documentation
  if (g[0] === 0x2002) return 'internal'; // 6to4, which embeds any IPv4
  if (g[0] === 0x3fff && g[1]! < 0x1000) return 'internal'; // documentation
  return 'public';
}

/** public, loopback or internal, for an IPv4 or IPv6 address in text form. */
export function classifyAddress(address: string): AddressClass {
  const family = isIP(address.split('%')[0]!);
  if (family === 4) return classifyIPv4(ipv4ToInt(address));
  if (family === 6) return classifyIPv6(address);
  return 'internal';
}

function isAllowed(kind: AddressClass, policy: DestinationPolicy): boolean {
  return kind === 'public' || (kind === 'loopback' && loopbackAllowed(policy));
}

function loopbackAllowed(policy: DestinationPolicy): boolean {
  return policy.allowLoopback && policy.environment === 'test';
}

// What the client is told names the rule, never the address: what a name resolves to inside
// our network is not the client's to learn.
const REFUSALS: Record<Exclude<AddressClass, 'public'>, string> = {
  loopback:
    'Webhook URLs must not point at loopback addresses (test endpoints may, where the server runs with WEBHOOKS_ALLOW_LOOPBACK).',
  internal:
    'Webhook URLs must point at public addresses only: not private, link-local, shared (CGNAT), multicast, documentation or otherwise reserved ones.',
};

// Names are resolved by c-ares (DNS queries on the event loop's own sockets), not by the
// system's getaddrinfo: that runs on libuv's four threads, which also carry file writes (the
// log), and a lookup that hangs keeps its thread after any timeout of ours. Ten webhook URLs on
// unresolvable hosts must not stall anyone else. Each query gives up after 2.5 s, tried twice.
let resolver = new Resolver({ timeout: 2500, tries: 2 });

/** The DNS servers to ask (DNS_SERVERS); by default the system's (/etc/resolv.conf). */
export function useDnsServers(servers: readonly string[]): void {
  resolver = new Resolver({ timeout: 2500, tries: 2 });
  if (servers.length > 0) resolver.setServers([...servers]);
}

async function resolve(hostname: string): Promise<{ address: string; family: number }[]> {
  // RFC 6761: localhost names are loopback, without asking DNS (c-ares does not read hosts).
  if (hostname === 'localhost' || hostname.endsWith('.localhost')) {
    return [
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ];
  }
  const [v4, v6] = await Promise.allSettled([
    resolver.resolve4(hostname),
    resolver.resolve6(hostname),
  ]);
  return [
    ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
    ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
  ];
}

/**
 * Checks a webhook URL and resolves its host; every address must be allowed (a name that
 * resolves to a public and an internal address is refused: that is how DNS rebinding starts).
 * Returns the URL and the address to connect to; throws DestinationRefusedError.
 */
export async function resolveDestination(
  raw: string,
  policy: DestinationPolicy,
): Promise<Destination> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new DestinationRefusedError('The url is not a valid absolute URL.');
  }
  const httpAllowed = loopbackAllowed(policy) && url.protocol === 'http:';
  if (url.protocol !== 'https:' && !httpAllowed) {
    throw new DestinationRefusedError('Webhook URLs must use https.');
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: { address: string; family: number }[];
  if (isIP(host)) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    try {
      addresses = await resolve(host);
    } catch {
      throw new DestinationRefusedError(`The host ${host} could not be resolved.`);
    }
  }
  if (addresses.length === 0) {
    throw new DestinationRefusedError(`The host ${host} could not be resolved.`);
  }
  for (const { address } of addresses) {
    const kind = classifyAddress(address);
    if (kind !== 'public' && !isAllowed(kind, policy)) {
      throw new DestinationRefusedError(REFUSALS[kind]);
    }
  }
  const chosen = addresses[0]!;
  return { url, address: chosen.address, family: chosen.family === 6 ? 6 : 4 };
}

/** A `lookup` for the http agent that always answers the address already checked. */
export function pinnedLookup(destination: Destination): LookupFunction {
  const { address, family } = destination;
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}
