import { parseTimestamp } from '../domain/clock.ts';
import { isTerminal, type Prediction } from '../domain/prediction.ts';
import { kopecksToRoubles } from '../domain/pricing.ts';
import type { OutputStore } from '../ports/output-store.ts';
import { redactSecrets } from '../domain/secrets.ts';
import type { ModelCatalog } from '../catalog/model-catalog.ts';
import { withFileUrls } from './output-urls.ts';
import { withInputRead } from '../use-cases/read-input.ts';
import type { PredictionMetrics, PredictionUrls, PredictionView } from './prediction-view-schema.ts';

export type { PredictionMetrics, PredictionUrls, PredictionView };

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
