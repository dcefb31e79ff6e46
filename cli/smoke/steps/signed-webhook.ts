import { predictionViewSchema, type PredictionView } from '../../../shared/api/prediction-view-schema.ts';
import { isTerminalStatus } from '../../../shared/domain/prediction.ts';
import { webhookDeliveriesSchema, webhookSecretSchema } from '../../../shared/api/webhook-views.ts';
import { verifyWebhook } from '../../../shared/domain/webhook-signature.ts';
import { expectStatus, type SmokeClient } from '../client.ts';
import type { SmokeCheck } from '../context.ts';
import { stepDeadline } from '../context.ts';
import { webhookPlan } from '../options.ts';
import { createPrediction } from '../predictions.ts';
import { startReceiver, type ReceivedDelivery } from '../receiver.ts';
import { duration, StepFailure } from '../step.ts';

/** How far the delivery's timestamp may be from this machine's clock (Standard Webhooks' five minutes). */
const TOLERANCE_SECONDS = 300;

/** Where the local runtime reaches a receiver listening on `host` (all interfaces: through 127.0.0.1). */
const loopbackAddress = (host: string, port: number): string => {
  const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}/smoke`;
};

const header = (delivery: ReceivedDelivery, name: string): string => {
  const value = delivery.headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
};

/** The delivery's body as JSON, or null when it is not JSON. */
const jsonOf = (delivery: ReceivedDelivery): unknown => {
  try {
    return JSON.parse(delivery.body) as unknown;
  } catch {
    return null;
  }
};

/** The prediction a delivery carries (interface: Webhooks: the shape of a prediction response), if it does. */
const predictionOf = (delivery: ReceivedDelivery): PredictionView | null => {
  const parsed = predictionViewSchema.safeParse(jsonOf(delivery));
  return parsed.success ? parsed.data : null;
};

const signingSecret = async (client: SmokeClient): Promise<string> => {
  const reply = expectStatus(await client.call('webhooks/default/secret'), 200, 'GET webhooks/default/secret');
  const parsed = webhookSecretSchema.safeParse(reply.body);
  if (!parsed.success)
    throw new StepFailure(`GET webhooks/default/secret answered no whsec_ key (request id ${reply.requestId})`);
  return parsed.data.key;
};

/** What the service's delivery log says of a webhook that has not arrived: its last attempt. */
const lastAttempt = async (client: SmokeClient, id: string): Promise<string> => {
  const reply = await client.call(`predictions/${id}/webhooks`);
  const log = webhookDeliveriesSchema.safeParse(reply.body);
  if (reply.status !== 200 || !log.success) return 'its delivery log could not be read';
  const attempt = log.data.attempts.at(-1);
  if (!attempt) return 'the service has made no attempt yet';
  return `the service's last attempt (${attempt.attempt}, ${attempt.event}) got ${attempt.status_code === null ? (attempt.error ?? 'no answer') : `HTTP ${attempt.status_code}`}: ${attempt.outcome}`;
};

/**
 * Interface: Webhooks: a prediction with a webhook is POSTed to a receiver this command runs, and the delivery
 * verifies (X-Webhook-SIGNATURE; interface: Webhook signing) with the account's signing secret, read from the API.
 */
export const signedWebhook: SmokeCheck = {
  name: 'signed webhook',
  async run(context) {
    const { client, options } = context;
    const plan = webhookPlan(options);
    if (plan.kind === 'skip') return plan;
    const secret = await signingSecret(client);
    const receiver = await startReceiver(plan.listen);
    try {
      const address = plan.url?.href ?? loopbackAddress(plan.listen.host, receiver.port);
      const started = performance.now();
      const { prediction } = await createPrediction(client, options.model, options.input, {
        headers: { 'webhook-url': address },
      });
      const ended = (delivery: ReceivedDelivery) => {
        const delivered = predictionOf(delivery);
        return delivered?.id === prediction.id && isTerminalStatus(delivered.status);
      };
      let delivery: ReceivedDelivery;
      try {
        delivery = await receiver.next(ended, AbortSignal.timeout(Math.max(0, stepDeadline(context) - Date.now())));
      } catch {
        throw new StepFailure(
          `no webhook of ${prediction.id} reached ${address} (listening on ${plan.listen.host}:${receiver.port}) in time; ${await lastAttempt(client, prediction.id)}`,
        );
      }
      const arrivedAfter = performance.now() - started;
      const signed = {
        id: header(delivery, 'x-webhook-id'),
        timestamp: header(delivery, 'x-webhook-timestamp'),
        signature: header(delivery, 'x-webhook-signature'),
      };
      if (
        !verifyWebhook(secret, signed, delivery.body, {
          nowSeconds: delivery.receivedAtSeconds,
          toleranceSeconds: TOLERANCE_SECONDS,
        })
      ) {
        const skew = delivery.receivedAtSeconds - Number(signed.timestamp);
        throw new StepFailure(
          Number.isInteger(Number(signed.timestamp)) && Math.abs(skew) <= TOLERANCE_SECONDS
            ? `the delivery ${signed.id || '(no X-Webhook-ID)'} does not verify: X-Webhook-SIGNATURE is not the account's secret's signature of its body`
            : `the delivery ${signed.id || '(no X-Webhook-ID)'} has X-Webhook-TIMESTAMP ${signed.timestamp || '(none)'}, ${skew} s from this machine's clock`,
        );
      }
      const delivered = predictionOf(delivery);
      if (delivered?.status !== 'succeeded')
        throw new StepFailure(
          `the webhook says ${prediction.id} ended ${delivered?.status ?? '(unreadable)'}, not succeeded${delivered?.error ? `: ${delivered.error}` : ''}`,
        );
      if (delivered.cost !== undefined)
        throw new StepFailure('the webhook body carries cost, which webhook bodies leave out');
      return {
        kind: 'pass',
        summary: `${prediction.id}: delivery ${signed.id} verified with the account's secret`,
        figures: [
          { name: 'arrived after', value: duration(arrivedAfter) },
          { name: 'timestamp off by', value: `${delivery.receivedAtSeconds - Number(signed.timestamp)} s` },
        ],
      };
    } finally {
      await receiver.close();
    }
  },
};
