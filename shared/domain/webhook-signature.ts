import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Spec §6.4: Base64(HMAC-SHA256(secret, "<webhook id>.<timestamp>.<raw body>")), the secret
 * used exactly as shown to the account owner.
 */
export const signWebhook = (secret: string, webhookId: string, timestamp: number, body: string): string =>
  createHmac('sha256', secret).update(`${webhookId}.${timestamp}.${body}`, 'utf8').digest('base64');

/** For receivers: constant-time comparison and a bound on clock difference. */
export const verifyWebhook = (
  secret: string,
  headers: { id: string; timestamp: string; signature: string },
  body: string,
  options: { nowSeconds: number; toleranceSeconds?: number },
): boolean => {
  const timestamp = Number(headers.timestamp);
  if (!Number.isInteger(timestamp) || Math.abs(options.nowSeconds - timestamp) > (options.toleranceSeconds ?? 300)) return false;
  const expected = Buffer.from(signWebhook(secret, headers.id, timestamp, body));
  const given = Buffer.from(headers.signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
};

/** Stable across retries, different per event of a prediction. */
export const webhookIdOf = (predictionId: string, status: string): string => `${predictionId}.${status}`;
