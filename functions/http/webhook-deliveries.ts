import { webhookDeliveries } from '../../shared/api/webhook-views.ts';
import { httpHandler } from './pipeline.ts';
import { ownedPrediction } from './predictions.ts';
import { json } from './respond.ts';

/** GET /api/v1/predictions/{id}/webhooks: every delivery attempt, oldest first. */
export const handler = httpHandler(async (event, _context, deps) => {
  const prediction = await ownedPrediction(event, deps.store);
  const attempts = await deps.deliveries.list(prediction.id);
  return json(200, webhookDeliveries(prediction.webhook, attempts));
});
