import * as z from 'zod';
import { ACTIVE_STATUSES, TERMINAL_STATUSES, WEBHOOK_EVENTS } from '../domain/prediction.ts';

/*
 * The prediction's response shape as zod schemas: for the OpenAPI document, the webhook's schema,
 * the list page's and the smoke checks. The handlers build views (prediction-view.ts) without it, so
 * no function loads these at its start (bench §4).
 */

const timestamp = (description: string) => z.iso.datetime().describe(description);

export const predictionUrlsSchema = z
  .object({
    get: z.url().describe('This prediction (GET).'),
    cancel: z.url().describe('Cancels it (POST).'),
    stream: z
      .url()
      .optional()
      .describe(
        "Server-sent events (output, logs, error, done), opened without a token: the URL carries the prediction's stream key.",
      ),
    web: z.url().optional(),
  })
  .meta({ id: 'PredictionUrls' });

export const predictionMetricsSchema = z
  .object({
    predict_time: z.number().nonnegative().optional().describe('Seconds the model says it ran.'),
    total_time: z.number().nonnegative().optional().describe('Seconds from creation to the end.'),
  })
  .catchall(z.unknown())
  .describe(
    'The run\'s measures, once it has ended; beside these, the model\'s own metrics (Cog\'s `record_metric`), as Cog\'s HTTP API gives them: their JSON types kept, dotted names nested (`timing.preprocess` as `{"timing": {"preprocess": …}}`).',
  )
  .meta({ id: 'PredictionMetrics' });

/** The prediction as clients see it (interface: The prediction): in every response and webhook that shows one. */
export const predictionViewSchema = z
  .object({
    id: z.string().describe('The prediction id.'),
    model: z.string().describe('The model, as `{company}/{model}`.'),
    input: z
      .record(z.string(), z.unknown())
      .describe('The input as the model got it, defaults filled in; secret inputs are shown redacted.'),
    status: z
      .enum([...ACTIVE_STATUSES, ...TERMINAL_STATUSES])
      .describe(
        "Replicate's clients (by User-Agent) see a queued or pending prediction as `starting`, the status they know.",
      ),
    output: z
      .unknown()
      .describe(
        "The model's output (its schema: the model's `…Output` component) once succeeded; null before and otherwise.",
      ),
    error: z.string().nullable().describe('Why it failed or was canceled; null otherwise.'),
    source: z.literal('api'),
    runtime: z.number().nonnegative().nullable().describe('Seconds of model time billed, once ended; null before.'),
    cost: z.number().nonnegative().optional().describe('Roubles charged, once ended (never in webhooks).'),
    created_at: timestamp('When it was created.'),
    started_at: timestamp('When the model began it.').nullable(),
    completed_at: timestamp('When it ended.').nullable(),
    webhook: z.string().optional().describe('Where its webhooks go, when it has one.'),
    progress: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .describe('Fraction of the work done while processing, when the model reports it.'),
    // What users of Replicate-like services expect beside the interface's fields (interface: Compatibility).
    version: z.string().describe('The model again: each model has one version.'),
    urls: predictionUrlsSchema.optional(),
    logs: z.string().describe("The model's log text (its tail, when long)."),
    metrics: predictionMetricsSchema,
    deadline: timestamp('When it is canceled if it has not ended (`Cancel-After`).').optional(),
    webhook_events_filter: z.array(z.enum(WEBHOOK_EVENTS)).optional(),
    data_removed: z.boolean().describe('True once its input and output were removed at the end of retention.'),
  })
  .meta({ id: 'Prediction' });

export type PredictionView = z.infer<typeof predictionViewSchema>;
export type PredictionUrls = z.infer<typeof predictionUrlsSchema>;
export type PredictionMetrics = z.infer<typeof predictionMetricsSchema>;

/** `GET /predictions` as Replicate's clients read it. */
export const predictionListBodySchema = z
  .object({
    results: z
      .array(predictionViewSchema)
      .describe('Newest first. An output kept in the outputs bucket shows as null here: its `urls.get` gives it.'),
    next: z.url().nullable().describe('The page of older predictions, or null.'),
    previous: z.url().nullable().describe('The page of newer predictions, or null.'),
  })
  .meta({ id: 'PredictionList' });

export type PredictionListBody = z.infer<typeof predictionListBodySchema>;
