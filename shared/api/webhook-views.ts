import * as z from 'zod';
import {
  DELIVERY_POSITION,
  type AccountDeliveriesPage,
  type AttemptOutcome,
  type DeliveryAttempt,
} from '../ports/delivery-log.ts';
import { formatTimestamp } from '../domain/clock.ts';

/** `GET /webhooks/default/secret`: the secret that signs this account's webhooks. */
export const webhookSecretSchema = z
  .object({
    key: z.string().startsWith('whsec_').describe('`whsec_` and the base64 of the key bytes (Standard Webhooks).'),
  })
  .meta({ id: 'WebhookSecret' });

/** `POST /webhooks/default/secret/rotate`: the new secret, and until when the previous one still signs. */
export const rotatedSecretSchema = z
  .object({
    key: z.string().startsWith('whsec_').describe('The new secret.'),
    previous_key_valid_until: z.iso
      .datetime()
      .nullable()
      .describe('Until then `webhook-signature` carries a signature by the previous secret too.'),
  })
  .meta({ id: 'RotatedWebhookSecret' });

const OUTCOMES = ['delivered', 'failed', 'dead_lettered'] as const satisfies readonly AttemptOutcome[];

export const deliveryAttemptSchema = z
  .object({
    webhook_id: z
      .string()
      .describe('The `webhook-id` the attempt was sent with (the same on every retry of one event).'),
    event: z.string().describe('The status delivered, or `output`/`logs`/`start` and the time of the event.'),
    attempt: z.int().min(1).describe('1 for the first attempt, then the retries.'),
    at: z.iso.datetime(),
    duration_ms: z.number().nonnegative(),
    status_code: z.int().nullable().describe("The receiver's HTTP status; null when none came."),
    error: z.string().nullable(),
    outcome: z.enum(OUTCOMES).describe('`dead_lettered`: the last attempt failed; it may be redelivered.'),
  })
  .meta({ id: 'WebhookDeliveryAttempt' });

/** `GET /predictions/{id}/webhooks`: every delivery attempt, oldest first. */
export const webhookDeliveriesSchema = z
  .object({
    webhook: z.string().nullable().describe("The prediction's webhook address; null when it has none."),
    attempts: z.array(deliveryAttemptSchema),
  })
  .meta({ id: 'WebhookDeliveries' });

/** `POST /predictions/{id}/webhooks/redeliver`: the delivery queued again. */
export const redeliverySchema = z
  .object({ webhook_id: z.string(), status: z.literal('queued') })
  .meta({ id: 'WebhookRedelivery' });

export type WebhookDeliveries = z.infer<typeof webhookDeliveriesSchema>;

const attemptView = (attempt: DeliveryAttempt): z.infer<typeof deliveryAttemptSchema> => ({
  webhook_id: attempt.webhookId,
  event: attempt.event,
  attempt: attempt.attempt,
  at: formatTimestamp(attempt.atMs),
  duration_ms: attempt.durationMs,
  status_code: attempt.statusCode,
  error: attempt.error,
  outcome: attempt.outcome,
});

export const webhookDeliveries = (webhook: string | null, attempts: readonly DeliveryAttempt[]): WebhookDeliveries => ({
  webhook,
  attempts: attempts.map(attemptView),
});

/** `GET /webhooks/default/deliveries`: attempts a page. */
export const ACCOUNT_DELIVERIES_PAGE_SIZE = 50;

export const accountDeliveryAttemptSchema = deliveryAttemptSchema
  .extend({
    prediction_id: z
      .string()
      .describe('The prediction whose webhook it was (`GET /predictions/{id}/webhooks` lists all of its attempts).'),
    model: z
      .string()
      .nullable()
      .describe("The prediction's model; null for attempts recorded before it was kept with them."),
  })
  .meta({ id: 'AccountWebhookDeliveryAttempt' });

export const accountDeliveriesSchema = z
  .object({
    results: z.array(accountDeliveryAttemptSchema).describe("Newest first, across the account's predictions."),
    next: z.url().nullable().describe('The page of older attempts, or null.'),
  })
  .meta({ id: 'AccountWebhookDeliveries' });

export type AccountDeliveries = z.infer<typeof accountDeliveriesSchema>;

/** The cursor of a page, as the `next` link carries it: base64url of where the page starts. */
export const encodeDeliveriesCursor = (position: string): string => Buffer.from(position, 'utf8').toString('base64url');

/** Where the page starts, or null for a cursor this API did not give out. */
export const decodeDeliveriesCursor = (raw: string): string | null => {
  if (!/^[A-Za-z0-9_-]+$/.test(raw)) return null;
  const position = Buffer.from(raw, 'base64url').toString('utf8');
  return DELIVERY_POSITION.test(position) ? position : null;
};

export const accountDeliveries = (page: AccountDeliveriesPage, apiBase: string): AccountDeliveries => ({
  results: page.attempts.map((attempt) => ({
    ...attemptView(attempt),
    prediction_id: attempt.predictionId,
    model: attempt.model,
  })),
  next:
    page.older === null ? null : `${apiBase}/webhooks/default/deliveries?cursor=${encodeDeliveriesCursor(page.older)}`,
});
