import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { refusedAddresses, type AddressPolicy } from '../domain/addresses.ts';

/**
 * Resolves like dns.lookup, but refuses a host whose address is not public, so the check holds
 * for the very address the connection goes to (no second lookup can rebind it). The one guard of
 * every request the service makes to an address a caller gave: webhooks and file inputs.
 */
export const guardedLookup =
  (policy: AddressPolicy): LookupFunction =>
  (hostname, options, callback) => {
    const answer = (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const refused = refusedAddresses(
        addresses.map((a) => a.address),
        policy,
      );
      if (refused)
        return callback(Object.assign(new Error(`${hostname}: ${refused}`), { code: 'EADDRNOTALLOWED' }), '', 0);
      const [first] = addresses;
      if (!first) return callback(new Error(`${hostname} has no address`), '', 0);
      if ((options as { all?: boolean }).all)
        return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      callback(null, first.address, first.family);
    };
    // Loaded at the first lookup, not at the start of every function that may make one (bench §4).
    import('node:dns').then(
      ({ lookup }) => lookup(hostname, { ...options, all: true }, answer),
      (error: unknown) => callback(error as NodeJS.ErrnoException, '', 0),
    );
  };
