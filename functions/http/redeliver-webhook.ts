import type { z } from 'zod';
import type { redeliverySchema } from '../../shared/api/webhook-views.ts';
import { PrognozError } from '../../shared/domain/errors.ts';
import { isTerminal } from '../../shared/domain/prediction.ts';
import { webhookIdOf } from '../../shared/domain/webhook-signature.ts';
import { httpHandler } from './pipeline.ts';
import { ownedPrediction } from './predictions.ts';
import { json } from './respond.ts';

const notDeadLettered = () =>
  new PrognozError('webhook_not_dead_lettered', 'only a webhook delivery that was dead-lettered can be redelivered');

/**
 * POST /api/v1/predictions/{id}/webhooks/redeliver: sends again a delivery that was dead-lettered
 * (same X-Webhook-ID, fresh attempts). Anything else is 409: it was delivered, is still trying, or
 * was redelivered already — of requests racing for one dead letter, the conditional write that
 * takes it lets exactly one through.
 */
export const handler = httpHandler(async (event, _context, deps) => {
  const prediction = await ownedPrediction(event, deps.store);
  const last = (await deps.deliveries.list(prediction.id)).at(-1);
  if (!isTerminal(prediction) || prediction.webhook === null || last?.outcome !== 'dead_lettered')
    throw notDeadLettered();
  if (!(await deps.deliveries.claimRedelivery(prediction.id, last, deps.clock.now())))
    throw new PrognozError('webhook_not_dead_lettered', 'this dead-lettered delivery has been redelivered already');
  try {
    await deps.notifier.notify({ predictionId: prediction.id, status: prediction.status });
  } catch (error) {
    await deps.deliveries.releaseRedelivery(prediction.id, last);
    throw error;
  }
  return json(202, { webhook_id: webhookIdOf(prediction.id, prediction.status), status: 'queued' } satisfies z.infer<
    typeof redeliverySchema
  >);
});
