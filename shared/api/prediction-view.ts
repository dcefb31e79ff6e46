import { isTerminal, type Prediction } from '../domain/prediction.ts';
import { kopecksToRoubles } from '../domain/pricing.ts';
import type { OutputStore } from '../ports/output-store.ts';

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
}

export interface ViewOptions {
  /** Webhook bodies carry no `cost` (spec §6.2). */
  readonly includeCost: boolean;
  /** The output of a succeeded prediction, read from wherever it is stored (`outputOf`). */
  readonly output?: unknown;
}

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
    input: prediction.input,
    status: prediction.status,
    output: prediction.status === 'succeeded' ? (options.output ?? null) : null,
    error: prediction.status === 'failed' ? prediction.error : null,
    source: prediction.source,
    runtime: terminal && prediction.runtimeMs !== null ? prediction.runtimeMs / 1000 : null,
    ...(terminal && options.includeCost ? { cost: kopecksToRoubles(prediction.costKopecks) } : {}),
    created_at: prediction.createdAt,
    started_at: prediction.startedAt,
    completed_at: terminal ? prediction.completedAt : null,
    ...(prediction.webhook !== null ? { webhook: prediction.webhook } : {}),
    ...(prediction.status === 'processing' && prediction.progress !== null ? { progress: prediction.progress } : {}),
  };
  return view;
};
