import type { AccountStore } from '../ports/account-store.ts';
import type { DeliveryLog } from '../ports/delivery-log.ts';
import type { WebhookPoster } from '../ports/webhook-poster.ts';
import type { Clock } from '../domain/clock.ts';
import { signStandardWebhook, signWebhook, webhookIdOf } from '../domain/webhook-signature.ts';
import { webhookWants, type Prediction } from '../domain/prediction.ts';
import type { PredictionStore } from '../ports/prediction-store.ts';
import { webhookEventOf, type WebhookMessage } from '../workflow/messages.ts';
import { RETRY_POLICY } from '../workflow/webhook-policy.ts';

export interface DeliveryDeps {
  readonly store: PredictionStore;
  /** The prediction as the webhook's body shows it (the API's view, without `cost`). */
  readonly present: (prediction: Prediction) => Promise<unknown>;
  readonly accounts: AccountStore;
  readonly log: DeliveryLog;
  readonly clock: Clock;
  readonly post: WebhookPoster;
}

export type DeliveryResult =
  | { readonly kind: 'skipped'; readonly reason: string }
  | { readonly kind: 'delivered'; readonly status: number }
  | { readonly kind: 'failed'; readonly reason: string; readonly final: boolean };

const MAX_ATTEMPTS = 1 + RETRY_POLICY.retryDelaysSeconds.length;

/**
 * One attempt at delivering a webhook event: the prediction as GET returns it, without `cost`
 * (interface: Webhooks), signed for this attempt, recorded in the delivery log. `X-Webhook-SIGNATURE` is
 * exactly one signature, by the current secret, compared whole (interface: Webhook signing); during a rotation
 * `webhook-signature` carries the previous secret's too, space-separated as Standard Webhooks
 * allows. 2xx is success; anything else, a timeout or a redirect is a failure the queue retries.
 */
export const deliverWebhook = async (
  deps: DeliveryDeps,
  message: WebhookMessage,
  attempt: number,
): Promise<DeliveryResult> => {
  const prediction = await deps.store.get(message.predictionId);
  if (!prediction?.webhook) return { kind: 'skipped', reason: 'no webhook registered' };
  if ('event' in message && !webhookWants(prediction, message.event))
    return { kind: 'skipped', reason: `${message.event} events were not asked for` };
  const startedMs = deps.clock.now();
  const secrets = await deps.accounts.signingSecrets(prediction.owner, startedMs);
  if (secrets === null) throw new Error(`account ${prediction.owner} has no signing secret`);
  const signing = [secrets.current, ...(secrets.previous === null ? [] : [secrets.previous])];

  const body = JSON.stringify(await deps.present(prediction));
  const webhookId = webhookIdOf(
    prediction.id,
    'status' in message ? message.status : `${message.event}.${message.atMs}`,
  );
  const timestamp = Math.floor(startedMs / 1000);
  const outcome = await deps.post(prediction.webhook, {
    headers: {
      'content-type': 'application/json',
      'user-agent': 'prognoz-webhooks/1',
      'x-webhook-id': webhookId,
      'x-webhook-timestamp': String(timestamp),
      'x-webhook-signature': signWebhook(secrets.current, webhookId, timestamp, body),
      'webhook-id': webhookId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signing.map((secret) => signStandardWebhook(secret, webhookId, timestamp, body)).join(' '),
    },
    body,
    timeoutMs: RETRY_POLICY.attemptTimeoutSeconds * 1000,
  });
  const delivered = 'status' in outcome && outcome.status >= 200 && outcome.status < 300;
  const final = !delivered && attempt >= MAX_ATTEMPTS;
  await deps.log.record(prediction, {
    webhookId,
    event: webhookEventOf(message),
    attempt,
    atMs: startedMs,
    durationMs: deps.clock.now() - startedMs,
    statusCode: 'status' in outcome ? outcome.status : null,
    error: 'error' in outcome ? outcome.error : null,
    outcome: delivered ? 'delivered' : final ? 'dead_lettered' : 'failed',
  });
  if (delivered) return { kind: 'delivered', status: outcome.status };
  return {
    kind: 'failed',
    reason: 'error' in outcome ? outcome.error : `the receiver answered HTTP ${outcome.status}`,
    final,
  };
};
