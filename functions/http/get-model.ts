import { PrognozError } from '../../shared/domain/errors.ts';
import { findModel, jsonSchemaOf } from '../../shared/models/registry.ts';
import { httpHandler } from './pipeline.ts';
import { json } from './respond.ts';

/** GET /api/v1/{company}/{model}: the model, its price and its input/output JSON Schema. */
export const handler = httpHandler(async (event) => {
  const id = `${event.pathParameters?.company ?? ''}/${event.pathParameters?.model ?? ''}`;
  const model = findModel(id);
  if (!model) throw new PrognozError('model_not_found', `there is no model ${id}`);
  return Promise.resolve(
    json(200, {
      id: model.id,
      description: model.description,
      price_per_second: Number(model.pricePerSecond),
      currency: 'RUB',
      schema: jsonSchemaOf(model),
    }),
  );
});
