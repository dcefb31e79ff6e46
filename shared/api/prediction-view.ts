import { parseTimestamp } from '../domain/clock.ts';
import { isTerminal, type Prediction } from '../domain/prediction.ts';
import { kopecksToRoubles } from '../domain/pricing.ts';
import type { OutputStore } from '../ports/output-store.ts';
import { redactSecrets } from '../domain/secrets.ts';
import { findModel } from '../models/registry.ts';

/** The prediction as clients see it (spec §2.2). */
export interface PredictionView {
  readonly id: string;
  readonly model: string;
  readonly input: Readonly<Record<string, unknown>>;
  readonly status: Prediction['status'];
  readonly output: unknown;
  readonly error: string | null;
  readonly source: 'api';
  readonly runtime: number | null;
  readonly cost?: number;
  readonly created_at: string;
  readonly started_at: string | null;
  readonly completed_at: string | null;
  readonly webhook?: string;
  /** Fraction of the work done (0–1) while processing, when the model reports it. */
  readonly progress?: number;
  // What users of Replicate-like services expect beside the spec's fields (DESIGN §6, compatibility).
  /** The model's `{company}/{model}`: each model has one version. */
  readonly version: string;
  readonly urls?: PredictionUrls;
  /** The model's log text (its tail, when long). */
  readonly logs: string;
  readonly metrics: PredictionMetrics;
  /** When it is canceled if it has not ended (`Cancel-After`). */
  readonly deadline?: string;
  readonly webhook_events_filter?: readonly string[];
  readonly data_removed: boolean;
}

export interface PredictionUrls {
  readonly get: string;
  readonly cancel: string;
  /** Server-sent events (output, logs, error, done), opened without a token: the URL carries the prediction's stream key. */
  readonly stream?: string;
  readonly web?: string;
}

export interface PredictionMetrics {
  /** Seconds the model says it ran. */
  readonly predict_time?: number;
  /** Seconds from creation to the end. */
  readonly total_time?: number;
}

export const predictionUrls = (prediction: Pick<Prediction, 'id' | 'streamKey'>, apiBase: string): PredictionUrls => ({
  get: `${apiBase}/predictions/${prediction.id}`,
  cancel: `${apiBase}/predictions/${prediction.id}/cancel`,
  ...(prediction.streamKey === null ? {} : { stream: `${apiBase}/predictions/${prediction.id}/stream?key=${prediction.streamKey}` }),
});

const metricsOf = (prediction: Prediction): PredictionMetrics => {
  if (!isTerminal(prediction)) return {};
  const predictMs = prediction.predictTimeMs ?? prediction.runtimeMs;
  return {
    ...(predictMs === null ? {} : { predict_time: predictMs / 1000 }),
    ...(prediction.completedAt === null ? {} : { total_time: (parseTimestamp(prediction.completedAt) - parseTimestamp(prediction.createdAt)) / 1000 }),
  };
};

export interface ViewOptions {
  /** Webhook bodies carry no `cost` (spec §6.2). */
  readonly includeCost: boolean;
  /** The output of a succeeded prediction, read from wherever it is stored (`outputOf`). */
  readonly output?: unknown;
}

/**
 * Replicate's clients know five statuses and the Python one rejects any other (its model is a
 * closed list), so to them a prediction waiting in a queue reads as `starting` — which is what
 * Replicate calls it. Everyone else sees the spec's statuses.
 */
export const REPLICATE_CLIENT_AGENT = /^replicate-(python|javascript)\//i;

export const asReplicateClientsSeeIt = (view: PredictionView): PredictionView =>
  view.status === 'queued' || view.status === 'pending' ? { ...view, status: 'starting' } : view;

/** A succeeded prediction's output: inline in the item, or read from the outputs bucket. */
export const outputOf = async (prediction: Prediction, outputs: Pick<OutputStore, 'get'>): Promise<unknown> => {
  if (prediction.status !== 'succeeded') return null;
  const stored = prediction.output;
  return stored.kind === 'inline' ? stored.value : (JSON.parse(await outputs.get(stored.key)) as unknown);
};

/** The view with the output read in, for every response and webhook that shows a prediction. */
export const presentPrediction = async (
  prediction: Prediction,
  outputs: Pick<OutputStore, 'get'>,
  options: Omit<ViewOptions, 'output'>,
): Promise<PredictionView> => toPredictionView(prediction, { ...options, output: await outputOf(prediction, outputs) });

export const toPredictionView = (prediction: Prediction, options: ViewOptions): PredictionView => {
  const terminal = isTerminal(prediction);
  const view: PredictionView = {
    id: prediction.id,
    model: prediction.model,
    // Secret inputs (cog.Secret) are never shown: not to the caller, not in a webhook, not in a list.
    input: redactSecrets(prediction.input, findModel(prediction.model)?.secrets ?? []),
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
    ...(prediction.webhookEvents === null ? {} : { webhook_events_filter: prediction.webhookEvents }),
    data_removed: terminal && prediction.dataRemoved,
  };
  return view;
};
