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
] as const) {
  privateRanges.addSubnet(net, bits, 'ipv6');
}

/** `::ffff:a.b.c.d` (and its hex form) is the IPv4 address a.b.c.d. */
function unmapped(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const lower = address.toLowerCase();
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return { address: dotted[1], family: 'ipv4' };
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const hi = parseInt(hex[1], 16);
    const lo = parseInt(hex[2], 16);
    return { address: `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`, family: 'ipv4' };
  }
  return { address, family: isIP(address) === 6 ? 'ipv6' : 'ipv4' };
}

/** Host names of cloud metadata services (they resolve only inside their clouds). */
const METADATA_HOSTS = new Set(['metadata.google.internal', 'metadata.goog', 'metadata.azure.com', 'instance-data', 'instance-data.ec2.internal']);

/** A cloud metadata endpoint named by IP literal (mapped IPv4 forms included) or by its well-known host name. */
export function isMetadataHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
  if (METADATA_HOSTS.has(host)) return true;
  if (isIP(host) === 0) return false;
  const a = unmapped(host);
  return metadata.check(a.address, a.family);
}

/** Why an address may not receive webhooks, or null when it may. */
export function refusedAddress(address: string, allowPrivate: boolean): string | null {
  if (isIP(address) === 0) return `${address} is not an IP address`;
  const a = unmapped(address);
  if (metadata.check(a.address, a.family)) return `${address} is a cloud metadata address (always refused)`;
  if (!allowPrivate && privateRanges.check(a.address, a.family)) {
    return `${address} is a loopback, private, link-local or unspecified address (set WEBHOOK_ALLOW_PRIVATE_NETWORKS=true for development)`;
  }
  return null;
}

/** The host of a URL as an IP literal (brackets of IPv6 removed), or null for a name. */
export function ipLiteralOf(hostname: string): string | null {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) ? bare : null;
}
