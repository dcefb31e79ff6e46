import { PrognozError } from '../../shared/domain/errors.ts';
import { presentForCaller } from './present.ts';
import { cancelPredictionUseCase } from '../../shared/use-cases/cancel-prediction.ts';
import { httpHandler } from './pipeline.ts';
import { ownedPrediction } from './predictions.ts';
import { json } from './respond.ts';

/** POST /api/v1/predictions/{id}/cancel: 200 canceled (also when it already was), 409 when it finished. */
export const handler = httpHandler(async (event, _context, deps) => {
  const prediction = await ownedPrediction(event, deps.store);
  const canceled = await cancelPredictionUseCase(deps, prediction.id);
  if (canceled.ok) return json(200, await presentForCaller(event, canceled.value, deps));
  if (canceled.error.code !== 'prediction_finished') throw canceled.error;
  const current = (await deps.store.get(prediction.id)) ?? prediction;
  throw new PrognozError('prediction_finished', canceled.error.message, {
    body: { prediction: await presentForCaller(event, current, deps) },
  });
});
