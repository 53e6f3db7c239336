import { BlockList, isIP } from 'node:net';

/** Cloud metadata endpoints: refused always, whatever WEBHOOK_ALLOW_PRIVATE_NETWORKS says. */
const metadata = new BlockList();
metadata.addSubnet('169.254.0.0', 16, 'ipv4');
metadata.addAddress('fd00:ec2::254', 'ipv6');

/** Loopback, private, link-local, unspecified (and other non-public) ranges: refused unless allowed. */
const privateRanges = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  privateRanges.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 32],
  ['2001:db8::', 32],
] as const) {
  privateRanges.addSubnet(net, bits, 'ipv6');
}

type Address = { address: string; family: 'ipv4' | 'ipv6' };

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part and a zone allowed). */
function groupsOf(address: string): number[] {
  let text = address.toLowerCase().split('%')[0];
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const parse = (part: string) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const front = parse(head);
  if (tail === undefined) return front;
  const back = parse(tail);
  return [...front, ...Array<number>(8 - front.length - back.length).fill(0), ...back];
}

const ipv4Of = (hi: number, lo: number): Address => ({ address: `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`, family: 'ipv4' });

/**
 * The address itself and every IPv4 address an IPv6 one carries, as a network on the way may
 * route it: IPv4-mapped and -compatible (`::ffff:a.b.c.d`, `::a.b.c.d`), SIIT (`::ffff:0:a.b.c.d`),
 * NAT64 (`64:ff9b::/96`, `64:ff9b:1::/48`), 6to4 (`2002::/16`) and Teredo (`2001::/32`: server and client).
 */
function addressesIn(address: string): Address[] {
  if (isIP(address) !== 6) return [{ address, family: 'ipv4' }];
  const g = groupsOf(address);
  const all: Address[] = [{ address, family: 'ipv6' }];
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && (g[5] === 0xffff || (g[5] === 0 && (g[6] !== 0 || g[7] > 1)))) all.push(ipv4Of(g[6], g[7]));
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) all.push(ipv4Of(g[6], g[7]));
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) all.push(ipv4Of(g[6], g[7]));
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) all.push(ipv4Of(g[3], ((g[4] & 0xff) << 8) | (g[5] >> 8)));
  if (g[0] === 0x2002) all.push(ipv4Of(g[1], g[2]));
  if (g[0] === 0x2001 && g[1] === 0) all.push(ipv4Of(g[2], g[3]), ipv4Of(g[6] ^ 0xffff, g[7] ^ 0xffff));
  return all;
}

/** Host names of cloud metadata services (they resolve only inside their clouds). */
const METADATA_HOSTS = new Set(['metadata.google.internal', 'metadata.goog', 'metadata.azure.com', 'instance-data', 'instance-data.ec2.internal']);

/** A cloud metadata endpoint named by IP literal (mapped IPv4 forms included) or by its well-known host name. */
export function isMetadataHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
  if (METADATA_HOSTS.has(host)) return true;
  if (isIP(host) === 0) return false;
  return addressesIn(host).some((a) => metadata.check(a.address, a.family));
}

/** Why an address may not receive webhooks, or null when it may. */
export function refusedAddress(address: string, allowPrivate: boolean): string | null {
  if (isIP(address) === 0) return `${address} is not an IP address`;
  const carried = addressesIn(address);
  if (carried.some((a) => metadata.check(a.address, a.family))) return `${address} is a cloud metadata address (always refused)`;
  if (!allowPrivate && carried.some((a) => privateRanges.check(a.address, a.family))) {
    return `${address} is a loopback, private, link-local or unspecified address (set WEBHOOK_ALLOW_PRIVATE_NETWORKS=true for development)`;
  }
  return null;
}

/** The host of a URL as an IP literal (brackets of IPv6 removed), or null for a name. */
export function ipLiteralOf(hostname: string): string | null {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) ? bare : null;
}
