import { modelView } from '../../shared/api/model-view.ts';
import { requestedModel } from './model-path.ts';
import { httpHandler } from './pipeline.ts';
import { apiBaseOf } from './public-url.ts';
import { json } from './respond.ts';

/** GET /api/v1/{company}/{model}: the model, its price and its input/output JSON Schema. */
export const handler = httpHandler(async (event, _context, deps) => {
  return Promise.resolve(json(200, modelView(requestedModel(event, deps.catalog), apiBaseOf(event))));
});
