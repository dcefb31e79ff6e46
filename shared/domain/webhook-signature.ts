import { createHmac } from 'node:crypto';
import { sameSecret } from './constant-time.ts';

/**
 * Interface: Webhook signing: Base64(HMAC-SHA256(secret, "<webhook id>.<timestamp>.<raw body>")), the secret
 * used exactly as shown to the account owner.
 */
export const signWebhook = (secret: string, webhookId: string, timestamp: number, body: string): string =>
  createHmac('sha256', secret).update(`${webhookId}.${timestamp}.${body}`, 'utf8').digest('base64');

/**
 * The Standard Webhooks signature (`webhook-signature: v1,<sig>`), which the common verifier
 * libraries check: the same content, keyed with the base64-decoded part of `whsec_…`.
 */
export const signStandardWebhook = (secret: string, webhookId: string, timestamp: number, body: string): string =>
  `v1,${createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64'))
    .update(`${webhookId}.${timestamp}.${body}`, 'utf8')
    .digest('base64')}`;

/**
 * For receivers (interface: Webhook signing): accepts the delivery when `X-Webhook-SIGNATURE`, compared whole and
 * in constant time, is the signature by one of `secrets` (a receiver in the middle of a rotation
 * may hold both), and the timestamp is within the tolerance of the receiver's clock.
 */
export const verifyWebhook = (
  secrets: string | readonly string[],
  headers: { id: string; timestamp: string; signature: string },
  body: string,
  options: { nowSeconds: number; toleranceSeconds?: number },
): boolean => {
  const timestamp = Number(headers.timestamp);
  if (!Number.isInteger(timestamp) || Math.abs(options.nowSeconds - timestamp) > (options.toleranceSeconds ?? 300))
    return false;
  return (typeof secrets === 'string' ? [secrets] : secrets).some((secret) =>
    sameSecret(headers.signature, signWebhook(secret, headers.id, timestamp, body)),
  );
};

/** Stable across retries, different per event of a prediction. */
export const webhookIdOf = (predictionId: string, status: string): string => `${predictionId}.${status}`;
