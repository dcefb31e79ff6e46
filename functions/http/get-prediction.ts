import { presentForCaller } from './present.ts';
import { httpHandler } from './pipeline.ts';
import { ownedPrediction } from './predictions.ts';
import { json } from './respond.ts';

/** GET /api/v1/predictions/{id} */
export const handler = httpHandler(async (event, _context, deps) => {
  const prediction = await ownedPrediction(event, deps.store);
  return json(200, await presentForCaller(event, prediction, deps));
});
