import { isIP } from 'node:net';
import table from './blocked-addresses.json' with { type: 'json' };

/**
 * Which addresses a server-side request may reach, from the table in blocked-addresses.json that the
 * worker's fetcher of file inputs (shared/adapters/guarded-download.ts) applies too. The longest matching range decides;
 * an IPv6 form that embeds an IPv4 address is judged by that IPv4 address.
 *
 * Ranges are matched as integers here rather than with node:net's BlockList, whose IPv4 rules also
 * match IPv4-mapped IPv6 addresses and whose `::ffff:0:0/96` rule matches every IPv4 address.
 */
export type AddressVerdict = 'public' | 'loopback' | 'private';

type Family = 4 | 6;

interface Range {
  readonly family: Family;
  readonly base: bigint;
  readonly prefix: number;
  /** A blocked range's verdict, or the bit at which an embedded IPv4 address starts. */
  readonly rule: { readonly verdict: 'loopback' | 'private' } | { readonly ipv4AtBit: number };
}

const WIDTH = { 4: 32, 6: 128 } as const;

const parseIpv4 = (address: string): bigint =>
  address.split('.').reduce((value, octet) => (value << 8n) | BigInt(octet), 0n);

/** A valid IPv6 address (isIP === 6, zone removed) as a 128-bit integer. */
const parseIpv6 = (address: string): bigint => {
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(address)?.[1];
  const hex = dotted === undefined ? address : address.slice(0, -dotted.length) + toHexGroups(parseIpv4(dotted));
  const [head = '', tail] = hex.split('::');
  const groups = (part: string): string[] => (part === '' ? [] : part.split(':'));
  const all =
    tail === undefined
      ? groups(head)
      : [...groups(head), ...Array<string>(8 - groups(head).length - groups(tail).length).fill('0'), ...groups(tail)];
  return all.reduce((value, group) => (value << 16n) | BigInt(`0x${group}`), 0n);
};

const toHexGroups = (ipv4: bigint): string => `${(ipv4 >> 16n).toString(16)}:${(ipv4 & 0xffffn).toString(16)}`;

/** An IP address as an integer; an IPv6 zone (`fe80::1%eth0`) is dropped, the address alone decides. */
const parse = (address: string): { family: Family; value: bigint } | null => {
  const family = isIP(address);
  if (family === 4) return { family, value: parseIpv4(address) };
  if (family === 6) return { family, value: parseIpv6(address.replace(/%.*$/, '')) };
  return null;
};

const compile = (family: Family, entry: { range: string; verdict?: string; ipv4AtBit?: number }): Range => {
  const [network = '', length = ''] = entry.range.split('/');
  const parsed = parse(network);
  const prefix = Number(length);
  const width = WIDTH[family];
  if (parsed?.family !== family || !/^\d+$/.test(length) || prefix > width) {
    throw new Error(`blocked-addresses.json: ${entry.range} is not an IPv${family} range`);
  }
  if (parsed.value & ((1n << BigInt(width - prefix)) - 1n)) {
    throw new Error(`blocked-addresses.json: ${entry.range} has bits set past its prefix`);
  }
  const { verdict, ipv4AtBit } = entry;
  if (verdict === 'loopback' || verdict === 'private') return { family, base: parsed.value, prefix, rule: { verdict } };
  if (
    family === 6 &&
    verdict === undefined &&
    ipv4AtBit !== undefined &&
    Number.isInteger(ipv4AtBit) &&
    ipv4AtBit >= prefix &&
    ipv4AtBit <= 96
  ) {
    return { family, base: parsed.value, prefix, rule: { ipv4AtBit } };
  }
  throw new Error(
    `blocked-addresses.json: ${entry.range} needs a verdict (private or loopback) or, when it embeds IPv4, ipv4AtBit`,
  );
};

let compiled: readonly Range[] | undefined;

/**
 * Longest prefix first, so the first match is the one that decides. Compiled at the first check
 * rather than at import: every API function imports this module, and few of their requests check
 * an address (bench §4).
 */
const ranges = (): readonly Range[] =>
  (compiled ??= [
    ...table.ipv4.map((entry) => compile(4, entry)),
    ...table.ipv6.map((entry) => compile(6, entry)),
    ...table.ipv6Embedding.map((entry) => compile(6, entry)),
  ].sort((a, b) => b.prefix - a.prefix));

const judge = (family: Family, value: bigint): AddressVerdict => {
  const width = WIDTH[family];
  const range = ranges().find(
    (r) => r.family === family && value >> BigInt(width - r.prefix) === r.base >> BigInt(width - r.prefix),
  );
  if (range === undefined) return 'public';
  if ('verdict' in range.rule) return range.rule.verdict;
  return judge(4, (value >> BigInt(width - range.rule.ipv4AtBit - 32)) & 0xffffffffn);
};

/** public, loopback, or private (everything else that is blocked, and whatever is not an IP address). */
export const addressVerdict = (address: string): AddressVerdict => {
  const parsed = parse(address);
  return parsed === null ? 'private' : judge(parsed.family, parsed.value);
};

/** 127.0.0.0/8 and ::1, also when embedded in IPv6 (`::ffff:127.0.0.1`); false for a host name. */
export const isLoopbackAddress = (address: string): boolean => addressVerdict(address) === 'loopback';

/** Not private, loopback, link-local, carrier-grade NAT, multicast, documentation or reserved. */
export const isPublicAddress = (address: string): boolean => addressVerdict(address) === 'public';

export interface AddressPolicy {
  /** The local runtime reaches loopback (its own receivers); nothing else private, ever. */
  readonly allowLoopback: boolean;
}

/** Why an address may not be reached, or null when it may. */
export const refusedAddress = (address: string, policy: AddressPolicy): string | null => {
  const verdict = addressVerdict(address);
  if (verdict === 'public' || (verdict === 'loopback' && policy.allowLoopback)) return null;
  return `${address} is a private, loopback or link-local address`;
};

/**
 * Why a host may not be reached, from every address it resolves to (the first refused one), or
 * null when all may: a host that resolves to one private address among public ones is refused.
 */
export const refusedAddresses = (addresses: readonly string[], policy: AddressPolicy): string | null => {
  for (const address of addresses) {
    const refused = refusedAddress(address, policy);
    if (refused !== null) return refused;
  }
  return null;
};
