import type { APIGatewayProxyEvent } from 'aws-lambda';
import { QUOTED_IDEMPOTENCY_KEY } from '../../shared/api/request-schemas.ts';
import { SYNC_WAIT } from '../../shared/api/routes.ts';
import { PrognozError } from '../../shared/domain/errors.ts';
import type { AddressPolicy } from '../../shared/domain/addresses.ts';
import { checkWebhookUrl } from '../../shared/domain/webhook-url.ts';
import { distinctHeaderValues } from './headers.ts';

export const DEFAULT_SYNC_WAIT_SECONDS: number = SYNC_WAIT.defaultSeconds;
const MAX_SYNC_WAIT_SECONDS = SYNC_WAIT.maxSeconds;

export interface WaitPreference {
  readonly sync: boolean;
  readonly timeoutMs: number;
}

const parseWaitSeconds = (raw: string, header: string): number => {
  const seconds = Number(raw.trim());
  if (!/^\d+$/.test(raw.trim()) || seconds < 1 || seconds > MAX_SYNC_WAIT_SECONDS) {
    throw new PrognozError(
      'invalid_header',
      `${header} must be a whole number of seconds from 1 to ${MAX_SYNC_WAIT_SECONDS}`,
    );
  }
  return seconds;
};

/**
 * `Prefer: SYNC | ASYNC | wait | wait=N` (case-insensitive; unknown preferences are ignored as
 * RFC 7240 asks) and `Request-Timeout: N` seconds, 1–60, default 30 (interface: Requests).
 */
export const parseWaitPreference = (headers: APIGatewayProxyEvent['headers']): WaitPreference => {
  let sync = false;
  let seconds = DEFAULT_SYNC_WAIT_SECONDS;
  for (const token of (headers.prefer ?? '').split(/[,;]/).map((part) => part.trim().toLowerCase())) {
    if (token === 'sync' || token === 'wait') sync = true;
    else if (token === 'async') sync = false;
    else if (token.startsWith('wait=')) {
      sync = true;
      seconds = parseWaitSeconds(token.slice('wait='.length), 'Prefer: wait=N');
    }
  }
  const timeout = headers['request-timeout'];
  if (timeout !== undefined) seconds = parseWaitSeconds(timeout, 'Request-Timeout');
  return { sync, timeoutMs: seconds * 1000 };
};

/**
 * The webhook may be given three ways (interface: Webhooks): `Webhook-URL`, `X-Webhook-URL` or the body
 * field `webhook`. The same address twice is fine; two different ones are a 400.
 */
export const resolveWebhook = (
  event: APIGatewayProxyEvent,
  bodyField: unknown,
  policy: AddressPolicy,
): string | null => {
  if (bodyField !== undefined && typeof bodyField !== 'string') {
    throw new PrognozError('invalid_input', 'the webhook must be a string URL', {
      fields: [{ field: 'webhook', message: 'must be an https URL string' }],
    });
  }
  // Every value of either header counts: a header sent twice is two addresses, never one joined by a comma.
  const given = [
    ...distinctHeaderValues(event, 'webhook-url'),
    ...distinctHeaderValues(event, 'x-webhook-url'),
    ...(typeof bodyField === 'string' && bodyField.trim() !== '' ? [bodyField.trim()] : []),
  ];
  const distinct = [...new Set(given)];
  if (distinct.length > 1) {
    throw new PrognozError('webhook_conflict', 'two different webhook addresses were given; send one');
  }
  const [address] = distinct;
  if (address === undefined) return null;
  const checked = checkWebhookUrl(address, policy);
  if (!checked.ok) {
    throw new PrognozError('invalid_input', `the webhook address ${checked.error}`, {
      fields: [{ field: 'webhook', message: checked.error }],
    });
  }
  return address;
};

const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;

/**
 * `Idempotency-Key` (IETF httpapi draft): a Structured Field string, `"8e03…"`; a bare value is
 * taken too, since many clients send one. 1–255 printable ASCII characters; null when absent.
 */
export const parseIdempotencyKey = (headers: APIGatewayProxyEvent['headers']): string | null => {
  const raw = headers['idempotency-key'];
  if (raw === undefined) return null;
  const value = raw.trim();
  const quoted = QUOTED_IDEMPOTENCY_KEY.exec(value);
  let key: string | null = value;
  if (quoted) key = (quoted[1] ?? '').replace(/\\(["\\])/g, '$1');
  else if (value.startsWith('"')) key = null;
  if (key === null || key.length > MAX_IDEMPOTENCY_KEY_LENGTH || !PRINTABLE_ASCII.test(key)) {
    throw new PrognozError(
      'invalid_header',
      `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters, as a quoted string: Idempotency-Key: "…"`,
    );
  }
  return key;
};
