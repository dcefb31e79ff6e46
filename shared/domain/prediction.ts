import { formatTimestamp, parseTimestamp } from './clock.ts';
import { PrognozError } from './errors.ts';
import type { AccountId, PredictionId } from './ids.ts';
import { costInKopecks } from './pricing.ts';
import { err, ok, type Result } from './result.ts';

/** Statuses of spec §3; their meaning is DESIGN §6. */
export const ACTIVE_STATUSES = ['pending', 'starting', 'queued', 'processing'] as const;
export const TERMINAL_STATUSES = ['succeeded', 'failed', 'canceled'] as const;
export type ActiveStatus = (typeof ACTIVE_STATUSES)[number];
export type TerminalStatus = (typeof TERMINAL_STATUSES)[number];
export type PredictionStatus = ActiveStatus | TerminalStatus;

export const isTerminalStatus = (status: PredictionStatus): status is TerminalStatus =>
  (TERMINAL_STATUSES as readonly string[]).includes(status);

interface PredictionBase {
  readonly id: PredictionId;
  readonly model: string;
  readonly owner: AccountId;
  /** The validated input, defaults filled in. */
  readonly input: Readonly<Record<string, unknown>>;
  readonly webhook: string | null;
  readonly source: 'api';
  readonly createdAt: string;
  /** Funds reserved while in flight, in the month they count against; released when it ends. */
  readonly hold: Hold;
}

export interface Hold {
  readonly kopecks: number;
  /** `2026-11`: the month whose spend and limit this prediction counts against. */
  readonly month: string;
}

interface Waiting extends PredictionBase {
  readonly status: 'pending' | 'starting' | 'queued';
  readonly startedAt: null;
}

interface Processing extends PredictionBase {
  readonly status: 'processing';
  readonly startedAt: string;
  /** How many times a worker has taken this prediction; above 1 means it was retried. */
  readonly attempts: number;
  /** Fraction of the work done (0–1) as the model reports it, when it does. */
  readonly progress: number | null;
}

interface Finished extends PredictionBase {
  readonly startedAt: string | null;
  readonly completedAt: string | null;
  /** Model time in whole milliseconds; null when the model never ran. */
  readonly runtimeMs: number | null;
  readonly costKopecks: number;
}

export interface Succeeded extends Finished {
  readonly status: 'succeeded';
  readonly output: unknown;
  readonly runtimeMs: number;
}

export interface Failed extends Finished {
  readonly status: 'failed';
  readonly error: string;
}

export interface Canceled extends Finished {
  readonly status: 'canceled';
}

export type ActivePrediction = Waiting | Processing;
export type TerminalPrediction = Succeeded | Failed | Canceled;
export type Prediction = ActivePrediction | TerminalPrediction;

export const isTerminal = (prediction: Prediction): prediction is TerminalPrediction =>
  isTerminalStatus(prediction.status);

export interface NewPrediction {
  readonly id: PredictionId;
  readonly model: string;
  readonly owner: AccountId;
  readonly input: Readonly<Record<string, unknown>>;
  readonly webhook: string | null;
  readonly nowMs: number;
  readonly hold: Hold;
}

export const createPrediction = (spec: NewPrediction): Prediction => ({
  id: spec.id,
  model: spec.model,
  owner: spec.owner,
  input: spec.input,
  webhook: spec.webhook,
  source: 'api',
  createdAt: formatTimestamp(spec.nowMs),
  hold: spec.hold,
  status: 'starting',
  startedAt: null,
});

/** What can happen to a prediction. Every change of status goes through `transition`. */
export type PredictionEvent =
  | { readonly type: 'queued' }
  | { readonly type: 'started'; readonly atMs: number }
  | { readonly type: 'succeeded'; readonly atMs: number; readonly output: unknown; readonly runtimeMs: number }
  | { readonly type: 'failed'; readonly atMs: number; readonly error: string; readonly runtimeMs: number | null }
  | { readonly type: 'canceled'; readonly atMs: number };

export interface Pricing {
  /** Price of the prediction's model, micro-roubles per second. */
  readonly pricePerSecondMicro: bigint;
}

const finished = (prediction: Prediction, atMs: number, runtimeMs: number | null, pricing: Pricing) => ({
  id: prediction.id,
  model: prediction.model,
  owner: prediction.owner,
  input: prediction.input,
  webhook: prediction.webhook,
  source: prediction.source,
  createdAt: prediction.createdAt,
  hold: prediction.hold,
  startedAt: prediction.startedAt,
  completedAt: formatTimestamp(atMs),
  runtimeMs,
  costKopecks: runtimeMs === null ? 0 : costInKopecks(runtimeMs, pricing.pricePerSecondMicro),
});

const finishedError = (prediction: TerminalPrediction): PrognozError =>
  new PrognozError('prediction_finished', `prediction ${prediction.id} has already ${prediction.status}`);

/**
 * The one state machine of a prediction (DESIGN §6). Terminal states never change; a cancel of a
 * canceled prediction is not an error, it returns the prediction unchanged.
 */
export const transition = (
  prediction: Prediction,
  event: PredictionEvent,
  pricing: Pricing,
): Result<Prediction, PrognozError> => {
  if (isTerminal(prediction)) {
    if (event.type === 'canceled' && prediction.status === 'canceled') return ok(prediction);
    return err(finishedError(prediction));
  }
  switch (event.type) {
    case 'queued':
      if (prediction.status !== 'starting' && prediction.status !== 'pending') {
        return err(new PrognozError('internal_error', `cannot queue a ${prediction.status} prediction`));
      }
      return ok({ ...prediction, status: 'queued', startedAt: null });
    case 'started':
      return ok({
        ...prediction,
        status: 'processing',
        startedAt: formatTimestamp(event.atMs),
        attempts: prediction.status === 'processing' ? prediction.attempts + 1 : 1,
        progress: null,
      });
    case 'succeeded':
      return ok({ ...finished(prediction, event.atMs, event.runtimeMs, pricing), status: 'succeeded', output: event.output, runtimeMs: event.runtimeMs });
    case 'failed':
      return ok({ ...finished(prediction, event.atMs, event.runtimeMs, pricing), status: 'failed', error: event.error });
    case 'canceled': {
      // Billed only for the model time used before the cancel.
      const runtimeMs = prediction.startedAt === null ? null : Math.max(0, event.atMs - parseTimestamp(prediction.startedAt));
      return ok({ ...finished(prediction, event.atMs, runtimeMs, pricing), status: 'canceled' });
    }
  }
};
