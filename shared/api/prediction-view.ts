import { parseTimestamp } from '../domain/clock.ts';
import * as z from 'zod';
import {
  ACTIVE_STATUSES,
  isTerminal,
  TERMINAL_STATUSES,
  WEBHOOK_EVENTS,
  type Prediction,
} from '../domain/prediction.ts';
import { kopecksToRoubles } from '../domain/pricing.ts';
import type { OutputStore } from '../ports/output-store.ts';
import { redactSecrets } from '../domain/secrets.ts';
import type { ModelCatalog } from '../catalog/model-catalog.ts';
import { withFileUrls } from './output-urls.ts';
import { withInputRead } from '../use-cases/read-input.ts';

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

export const predictionUrls = (prediction: Pick<Prediction, 'id' | 'streamKey'>, apiBase: string): PredictionUrls => ({
  get: `${apiBase}/predictions/${prediction.id}`,
  cancel: `${apiBase}/predictions/${prediction.id}/cancel`,
  ...(prediction.streamKey === null
    ? {}
    : { stream: `${apiBase}/predictions/${prediction.id}/stream?key=${prediction.streamKey}` }),
});

const metricsOf = (prediction: Prediction): PredictionMetrics => {
  if (!isTerminal(prediction)) return {};
  const predictMs = prediction.predictTimeMs ?? prediction.runtimeMs;
  return {
    ...prediction.modelMetrics,
    ...(predictMs === null ? {} : { predict_time: predictMs / 1000 }),
    ...(prediction.completedAt === null
      ? {}
      : { total_time: (parseTimestamp(prediction.completedAt) - parseTimestamp(prediction.createdAt)) / 1000 }),
  };
};

export interface ViewOptions {
  /** Webhook bodies carry no `cost` (interface: Webhooks). */
  readonly includeCost: boolean;
  /** The models served, whose secret inputs a view hides. */
  readonly catalog: Pick<ModelCatalog, 'catalogModel'>;
  /** The output of a succeeded prediction, read from wherever it is stored (`outputOf`). */
  readonly output?: unknown;
}

/**
 * Replicate's clients know five statuses and the Python one rejects any other (its model is a
 * closed list), so to them a prediction waiting in a queue reads as `starting` — which is what
 * Replicate calls it. Everyone else sees the interface's statuses (interface: Statuses).
 */
export const REPLICATE_CLIENT_AGENT = /^replicate-(python|javascript)\//i;

export const asReplicateClientsSeeIt = (view: PredictionView): PredictionView =>
  view.status === 'queued' || view.status === 'pending' ? { ...view, status: 'starting' } : view;

/** A succeeded prediction's output (inline in the item, or read from the outputs bucket), its files as URLs. */
export const outputOf = async (prediction: Prediction, outputs: Pick<OutputStore, 'get'>): Promise<unknown> => {
  if (prediction.status !== 'succeeded') return null;
  const stored = prediction.output;
  const output = stored.kind === 'inline' ? stored.value : (JSON.parse(await outputs.get(stored.key)) as unknown);
  return withFileUrls(output, prediction);
};

/** The view with the input and output read in, for every response and webhook that shows a prediction. */
export const presentPrediction = async (
  prediction: Prediction,
  outputs: Pick<OutputStore, 'get'>,
  options: Omit<ViewOptions, 'output'>,
): Promise<PredictionView> => {
  const [read, output] = await Promise.all([withInputRead(prediction, outputs), outputOf(prediction, outputs)]);
  return toPredictionView(read, { ...options, output });
};

/** An input as a view shows it: one kept by reference must have been read in first (`withInputRead`). */
const shownInput = (prediction: Prediction): Readonly<Record<string, unknown>> => {
  if (prediction.input.kind === 'inline') return prediction.input.value;
  throw new Error(`prediction ${prediction.id}: its input (${prediction.input.key}) was not read in`);
};

export const toPredictionView = (prediction: Prediction, options: ViewOptions): PredictionView => {
  const terminal = isTerminal(prediction);
  const view: PredictionView = {
    id: prediction.id,
    model: prediction.model,
    // Secret inputs (cog.Secret) are never shown: not to the caller, not in a webhook, not in a list.
    input: redactSecrets(shownInput(prediction), options.catalog.catalogModel(prediction.model)?.secrets ?? []),
    status: prediction.status,
    output: prediction.status === 'succeeded' ? (options.output ?? null) : null,
    error: prediction.status === 'failed' || prediction.status === 'canceled' ? prediction.error : null,
    source: prediction.source,
    runtime: terminal && prediction.runtimeMs !== null ? prediction.runtimeMs / 1000 : null,
    ...(terminal && options.includeCost ? { cost: kopecksToRoubles(prediction.costKopecks) } : {}),
    created_at: prediction.createdAt,
    started_at: prediction.startedAt,
    completed_at: terminal ? prediction.completedAt : null,
    ...(prediction.webhook !== null ? { webhook: prediction.webhook } : {}),
    ...(prediction.status === 'processing' && prediction.progress !== null ? { progress: prediction.progress } : {}),
    version: prediction.model,
    ...(prediction.apiBase === null ? {} : { urls: predictionUrls(prediction, prediction.apiBase) }),
    logs: prediction.logs,
    metrics: metricsOf(prediction),
    ...(prediction.deadlineAt === null ? {} : { deadline: prediction.deadlineAt }),
    ...(prediction.webhookEvents === null ? {} : { webhook_events_filter: [...prediction.webhookEvents] }),
    data_removed: terminal && prediction.dataRemoved,
  };
  return view;
};
