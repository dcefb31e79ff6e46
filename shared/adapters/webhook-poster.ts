import type { LookupAddress } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { refusedAddress, refusedAddresses, type AddressPolicy } from '../domain/addresses.ts';
import { guardedLookup } from './guarded-lookup.ts';
import type { WebhookPoster } from '../ports/webhook-poster.ts';

export const guardedPoster =
  (policy: AddressPolicy): WebhookPoster =>
  (url, request) =>
    new Promise((resolve) => {
      const target = new URL(url);
      const host = target.hostname.replace(/^\[|\]$/g, '');
      if (isIP(host) !== 0) {
        const refused = refusedAddress(host, policy);
        if (refused) return resolve({ error: refused });
      }
      const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
      const req = send(target, {
        method: 'POST',
        headers: { ...request.headers, 'content-length': Buffer.byteLength(request.body) },
        lookup: guardedLookup(policy),
        timeout: request.timeoutMs,
      });
      const timer = setTimeout(
        () => req.destroy(new Error(`no answer within ${request.timeoutMs / 1000} s`)),
        request.timeoutMs,
      );
      req.on('response', (res) => {
        clearTimeout(timer);
        res.resume();
        resolve({ status: res.statusCode ?? 0 });
        req.destroy();
      });
      req.on('timeout', () => req.destroy(new Error(`no answer within ${request.timeoutMs / 1000} s`)));
      req.on('error', (error) => {
        clearTimeout(timer);
        resolve({ error: error.message });
      });
      req.end(request.body);
    });

/** Checks a webhook host when it is registered: every address it resolves to must be allowed. */
export const checkWebhookHost = async (url: string, policy: AddressPolicy): Promise<string | null> => {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) return refusedAddress(host, policy);
  // Loaded here, not at the start: only a create with a webhook resolves one (bench §4).
  const { lookup } = await import('node:dns');
  const addresses = await new Promise<LookupAddress[] | Error>((resolve) =>
    lookup(host, { all: true }, (error, found) => resolve(error ?? found)),
  );
  if (addresses instanceof Error) return `${host} does not resolve`;
  return refusedAddresses(
    addresses.map((a) => a.address),
    policy,
  );
};
