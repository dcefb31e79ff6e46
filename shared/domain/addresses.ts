import { BlockList, isIP } from 'node:net';

/** Addresses a server-side request must never reach outside the local runtime. */
const NON_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b::', 96]] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv6');
}
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

const unmapped = (address: string): string => {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped?.[1] ?? address;
};

const family = (address: string) => (isIP(address) === 6 ? 'ipv6' : 'ipv4');

export const isLoopbackAddress = (address: string): boolean => {
  const plain = unmapped(address);
  return LOOPBACK.check(plain, family(plain));
};

/** Private, loopback, link-local, carrier-grade NAT, multicast, reserved. */
export const isPublicAddress = (address: string): boolean => {
  const plain = unmapped(address);
  if (isIP(plain) === 0) return false;
  return !NON_PUBLIC.check(plain, family(plain));
};

export interface AddressPolicy {
  /** The local runtime reaches loopback (its own receivers); nothing else private, ever. */
  readonly allowLoopback: boolean;
}

/** Why an address may not be reached, or null when it may. */
export const refusedAddress = (address: string, policy: AddressPolicy): string | null => {
  if (isPublicAddress(address)) return null;
  if (policy.allowLoopback && isLoopbackAddress(address)) return null;
  return `${address} is a private, loopback or link-local address`;
};
