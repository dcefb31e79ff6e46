import { presentPrediction } from '../../shared/api/prediction-view.ts';
import { apiDeps } from './deps.ts';
import { httpHandler } from './pipeline.ts';
import { ownedPrediction } from './predictions.ts';
import { json } from './respond.ts';

/** GET /api/v1/predictions/{id} */
export const handler = httpHandler(async (event) => {
  const deps = apiDeps();
  const prediction = await ownedPrediction(event, deps.store);
  return json(200, await presentPrediction(prediction, deps.outputs, { includeCost: true }));
});
