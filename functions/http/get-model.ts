import { modelView } from '../../shared/api/model-view.ts';
import { PrognozError } from '../../shared/domain/errors.ts';
import { findModel } from '../../shared/models/registry.ts';
import { httpHandler } from './pipeline.ts';
import { apiBaseOf } from './public-url.ts';
import { json } from './respond.ts';

/** GET /api/v1/{company}/{model}: the model, its price and its input/output JSON Schema. */
export const handler = httpHandler(async (event) => {
  const id = `${event.pathParameters?.company ?? ''}/${event.pathParameters?.model ?? ''}`;
  const model = findModel(id);
  if (!model) throw new PrognozError('model_not_found', `there is no model ${id}`);
  return Promise.resolve(json(200, modelView(model, apiBaseOf(event))));
});
