import type { AccountStore } from '../adapters/account-store.ts';
import type { PredictionStore } from '../adapters/prediction-store.ts';
import { toPredictionView } from '../api/prediction-view.ts';
import type { Clock } from '../domain/clock.ts';
import type { PredictionId } from '../domain/ids.ts';
import { signWebhook, webhookIdOf } from '../domain/webhook-signature.ts';
import type { WebhookMessage } from '../workflow/messages.ts';

/** Spec §6.5: a receiver has 10 seconds to answer. */
export const WEBHOOK_TIMEOUT_MS = 10_000;

export type PostOutcome = { readonly status: number } | { readonly error: string };

/** Sends one request; never follows redirects (a 3xx is a failed attempt). */
export type WebhookPoster = (url: string, request: { headers: Record<string, string>; body: string; timeoutMs: number }) => Promise<PostOutcome>;

export const fetchPoster: WebhookPoster = async (url, request) => {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: request.headers,
      body: request.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(request.timeoutMs),
    });
    await response.body?.cancel();
    return { status: response.status };
  } catch (error) {
    const timedOut = error instanceof Error && error.name === 'TimeoutError';
    return { error: timedOut ? `no answer within ${request.timeoutMs / 1000} s` : String(error) };
  }
};

export interface DeliveryDeps {
  readonly store: PredictionStore;
  readonly accounts: AccountStore;
  readonly clock: Clock;
  readonly post: WebhookPoster;
}

export type DeliveryResult =
  | { readonly kind: 'skipped'; readonly reason: string }
  | { readonly kind: 'delivered'; readonly status: number }
  | { readonly kind: 'failed'; readonly reason: string };

/**
 * Delivers one webhook event: the prediction as GET returns it, without `cost` (spec §6.2),
 * signed per attempt with the owner's secret. 2xx is success; anything else is a failure the
 * caller retries.
 */
export const deliverWebhook = async (deps: DeliveryDeps, message: WebhookMessage): Promise<DeliveryResult> => {
  const prediction = await deps.store.get(message.predictionId as PredictionId);
  if (!prediction?.webhook) return { kind: 'skipped', reason: 'no webhook registered' };
  const secret = await deps.accounts.signingSecret(prediction.owner);
  if (secret === null) throw new Error(`account ${prediction.owner} has no signing secret`);
  const body = JSON.stringify(toPredictionView(prediction, { includeCost: false }));
  const webhookId = webhookIdOf(prediction.id, message.status);
  const timestamp = Math.floor(deps.clock.now() / 1000);
  const outcome = await deps.post(prediction.webhook, {
    headers: {
      'content-type': 'application/json',
      'user-agent': 'prognoz-webhooks/1',
      'x-webhook-id': webhookId,
      'x-webhook-timestamp': String(timestamp),
      'x-webhook-signature': signWebhook(secret, webhookId, timestamp, body),
    },
    body,
    timeoutMs: WEBHOOK_TIMEOUT_MS,
  });
  if ('error' in outcome) return { kind: 'failed', reason: outcome.error };
  if (outcome.status >= 200 && outcome.status < 300) return { kind: 'delivered', status: outcome.status };
  return { kind: 'failed', reason: `the receiver answered HTTP ${outcome.status}` };
};
