import { isLoopbackAddress, type AddressPolicy } from './addresses.ts';
import { err, ok, type Result } from './result.ts';

/** localhost, a name under .localhost, or a loopback address (`[::1]` as URL.hostname spells it). */
export const isLoopbackHost = (hostname: string): boolean => {
  const host = hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host.endsWith('.localhost') || isLoopbackAddress(host);
};

/** A webhook address must be https (interface: Webhooks); the reason is returned when it is not acceptable. */
/** Plain http is accepted only to loopback, and only where the policy allows loopback (the local runtime). */
export const checkWebhookUrl = (raw: string, policy: AddressPolicy): Result<string, string> => {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return err('must be an https URL');
  }
  if (url.username !== '' || url.password !== '') return err('must not carry credentials');
  if (url.protocol === 'https:') return ok(url.href);
  if (url.protocol === 'http:' && policy.allowLoopback && isLoopbackHost(url.hostname)) return ok(url.href);
  return err(
    url.protocol === 'http:'
      ? 'must be https (plain http is accepted only for loopback in the local runtime)'
      : 'must be an https URL',
  );
};
