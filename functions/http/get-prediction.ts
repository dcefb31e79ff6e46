import { toPredictionView } from '../../shared/api/prediction-view.ts';
import { apiDeps } from './deps.ts';
import { httpHandler } from './pipeline.ts';
import { ownedPrediction } from './predictions.ts';
import { json } from './respond.ts';

/** GET /api/v1/predictions/{id} */
export const handler = httpHandler(async (event) => {
  const prediction = await ownedPrediction(event, apiDeps().store);
  return json(200, toPredictionView(prediction, { includeCost: true }));
});
