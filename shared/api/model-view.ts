import { jsonSchemaOf, type ModelDefinition } from '../models/registry.ts';

/** A model as the API shows it: what it does, what it costs, where to run it. */
export const modelSummary = (model: ModelDefinition, apiBase: string) => ({
  id: model.id,
  description: model.description,
  price_per_second: Number(model.pricePerSecond),
  currency: 'RUB',
  urls: {
    /** This model's page: its schema (GET). */
    model: `${apiBase}/${model.id}`,
    /** Where predictions of it are created (POST). */
    predictions: `${apiBase}/${model.id}`,
  },
});

/** One model in full: the summary and its input and output JSON Schema (derived from its predictor). */
export const modelView = (model: ModelDefinition, apiBase: string) => ({
  ...modelSummary(model, apiBase),
  schema: jsonSchemaOf(model),
});
