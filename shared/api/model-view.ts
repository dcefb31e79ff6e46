import { jsonSchemaOf, type ModelDefinition } from '../catalog/registry.ts';
import type { ModelSummary, ModelView } from './model-view-schema.ts';

export type { ModelSummary, ModelView } from './model-view-schema.ts';

/** A model as GET /models lists it (its shape: model-view-schema.ts). */
export const modelSummary = (model: ModelDefinition, apiBase: string): ModelSummary => ({
  id: model.id,
  description: model.description,
  price_per_second: Number(model.pricePerSecond),
  currency: 'RUB',
  urls: { model: `${apiBase}/${model.id}`, predictions: `${apiBase}/${model.id}` },
});

/** A model in full, as GET /models/{company}/{model} shows it. */
export const modelView = (model: ModelDefinition, apiBase: string): ModelView => ({
  ...modelSummary(model, apiBase),
  schema: jsonSchemaOf(model),
});
