import { isIP } from 'node:net';
import { err, ok, type Result } from './result.ts';

export interface WebhookUrlPolicy {
  /** Plain http to a loopback host is allowed in the local runtime only. */
  readonly allowLoopbackHttp: boolean;
}

const isLoopbackHost = (hostname: string): boolean => {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
};

/** A webhook address must be https (spec §6.1); the reason is returned when it is not acceptable. */
export const checkWebhookUrl = (raw: string, policy: WebhookUrlPolicy): Result<string, string> => {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return err('must be an https URL');
  }
  if (url.username !== '' || url.password !== '') return err('must not carry credentials');
  if (url.protocol === 'https:') return ok(url.href);
  if (url.protocol === 'http:' && policy.allowLoopbackHttp && isLoopbackHost(url.hostname)) return ok(url.href);
  return err(url.protocol === 'http:' ? 'must be https (plain http is accepted only for loopback in the local runtime)' : 'must be an https URL');
};
