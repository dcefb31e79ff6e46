import * as z from 'zod';

/*
 * A model's response shapes as zod schemas, for the OpenAPI document. The handlers build views
 * (model-view.ts) without them, so no function loads these at its start (bench §4).
 */

const modelUrlsSchema = z.object({
  model: z.url().describe("This model's page: its schema (GET)."),
  predictions: z.url().describe('Where predictions of it are created (POST).'),
});

/** A model as the API shows it: what it does, what it costs, where to run it. */
export const modelSummarySchema = z
  .object({
    id: z.string().describe('`{company}/{model}`'),
    description: z.string(),
    price_per_second: z.number().nonnegative().describe('Roubles per second of model time.'),
    currency: z.literal('RUB'),
    urls: modelUrlsSchema,
  })
  .meta({ id: 'ModelSummary' });

export const modelListSchema = z.object({ results: z.array(modelSummarySchema) }).meta({ id: 'ModelList' });

/** One model in full: the summary and its input and output JSON Schema (derived from its predictor). */
export const modelViewSchema = modelSummarySchema
  .extend({
    schema: z
      .object({
        input: z
          .record(z.string(), z.unknown())
          .describe("JSON Schema of the model's input (also in this document's components)."),
        output: z.record(z.string(), z.unknown()).describe("JSON Schema of the model's output."),
      })
      .describe('JSON Schema (draft 2020-12).'),
  })
  .meta({ id: 'Model' });

export type ModelSummary = z.infer<typeof modelSummarySchema>;
export type ModelView = z.infer<typeof modelViewSchema>;
