import type { z } from 'zod';
import type { redeliverySchema } from '../../shared/api/webhook-views.ts';
import { PrognozError } from '../../shared/domain/errors.ts';
import { isTerminal } from '../../shared/domain/prediction.ts';
import { webhookIdOf } from '../../shared/domain/webhook-signature.ts';
import { apiDeps } from './deps.ts';
import { httpHandler } from './pipeline.ts';
import { ownedPrediction } from './predictions.ts';
import { json } from './respond.ts';

/**
 * POST /api/v1/predictions/{id}/webhooks/redeliver: sends again a delivery that was dead-lettered
 * (same X-Webhook-ID, fresh attempts). Anything else is 409: it was delivered or is still trying.
 */
export const handler = httpHandler(async (event) => {
  const deps = apiDeps();
  const prediction = await ownedPrediction(event, deps.store);
  const attempts = await deps.deliveries.list(prediction.id);
  const last = attempts.at(-1);
  if (!isTerminal(prediction) || prediction.webhook === null || last?.outcome !== 'dead_lettered') {
    throw new PrognozError(
      'webhook_not_dead_lettered',
      'only a webhook delivery that was dead-lettered can be redelivered',
    );
  }
  await deps.notifier.notify({ predictionId: prediction.id, status: prediction.status });
  return json(202, { webhook_id: webhookIdOf(prediction.id, prediction.status), status: 'queued' } satisfies z.infer<
    typeof redeliverySchema
  >);
});
