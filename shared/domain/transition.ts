import { formatTimestamp, parseTimestamp } from './clock.ts';
import { PrognozError } from './errors.ts';
import type { AccountId, PredictionId } from './ids.ts';
import { attemptsUsed, sweepDeadline, type OwedEnding } from './phases.ts';
import {
  isTerminal,
  notifiesCompletion,
  type ActivePrediction,
  type Hold,
  type PhaseLimits,
  type Prediction,
  type PredictionBase,
  type Queued,
  type SideEffect,
  type StoredInput,
  type StoredOutput,
  type TerminalPrediction,
  type WebhookEvent,
} from './prediction.ts';
import { costInKopecks } from './pricing.ts';
import { err, ok, type Result } from './result.ts';
import { keepLogTail, keepModelMetrics, keepStreamed, type RunReport } from './run-report.ts';

/** What a prediction's model sets for it: its price and the limits of its phases. */
export interface PredictionPolicy {
  /** Price of the prediction's model, micro-roubles per second. */
  readonly pricePerSecondMicro: bigint;
  readonly limits: PhaseLimits;
}

export interface NewPrediction {
  readonly id: PredictionId;
  readonly model: string;
  readonly owner: AccountId;
  readonly input: StoredInput;
  readonly webhook: string | null;
  readonly webhookEvents?: readonly WebhookEvent[] | null;
  readonly apiBase?: string | null;
  readonly streamKey?: string | null;
  /** The inbox of the request that waits for its end, if one does. */
  readonly waiter?: string | null;
  /** `Cancel-After`, in seconds from creation. */
  readonly cancelAfterSeconds?: number | null;
  readonly nowMs: number;
  readonly hold: Hold;
  /** Its model's limits: when the sweeper first looks at it follows from them. */
  readonly limits: PhaseLimits;
}

/** A new prediction, `starting`, with its hold. */
export const createPrediction = (spec: NewPrediction): Prediction => {
  const deadlineMs = spec.cancelAfterSeconds == null ? null : spec.nowMs + spec.cancelAfterSeconds * 1000;
  const created: Prediction = {
    id: spec.id,
    model: spec.model,
    owner: spec.owner,
    input: spec.input,
    webhook: spec.webhook,
    webhookEvents: spec.webhookEvents ?? null,
    source: 'api',
    createdAt: formatTimestamp(spec.nowMs),
    apiBase: spec.apiBase ?? null,
    streamKey: spec.streamKey ?? null,
    waiter: spec.waiter ?? null,
    deadlineAt: deadlineMs === null ? null : formatTimestamp(deadlineMs),
    logs: '',
    hold: spec.hold,
    attempts: 0,
    status: 'starting',
    startedAt: null,
    sweepAtMs: null,
  };
  return withDeadline(created, spec.limits);
};

/**
 * Who ends a prediction. The workflow's own Finalize needs no one to stop its execution; anyone
 * else leaves the execution to be ended (`stop`).
 */
export type Ender = 'workflow' | 'worker' | 'api' | 'sweeper';

/** What can happen to a prediction. Every change of status goes through `transition`. */
export type PredictionEvent =
  | { readonly type: 'queued'; readonly atMs: number }
  /** Its workflow could not be started now: the sweeper will (`pending`). */
  | { readonly type: 'deferred'; readonly atMs: number }
  | { readonly type: 'claimed'; readonly atMs: number; readonly claim: string }
  /**
   * The worker holding `claim` stopped (or its model server did): back to the queue. `handedBack`:
   * the worker was being stopped and gave the run back itself, so the attempt does not count.
   */
  | { readonly type: 'lost'; readonly atMs: number; readonly claim: string; readonly handedBack?: boolean }
  | ({
      readonly type: 'succeeded';
      readonly atMs: number;
      readonly claim: string;
      readonly output: StoredOutput;
      readonly runtimeMs: number;
    } & RunReport &
      EndedExecution)
  | ({
      readonly type: 'failed';
      readonly atMs: number;
      readonly error: string;
      readonly runtimeMs: number | null;
      readonly by: Ender;
      /** When a worker reports, only for its own claim. */
      readonly claim?: string;
    } & RunReport &
      EndedExecution)
  | ({
      readonly type: 'canceled';
      readonly atMs: number;
      readonly by: Ender;
      /** Why the service canceled it (its deadline); none for a caller's cancel. */
      readonly error?: string;
      /** When its worker ends it (at its deadline), only for its own claim and with the time it ran. */
      readonly claim?: string;
      readonly runtimeMs?: number | null;
    } & RunReport &
      EndedExecution);

/**
 * `executionEnded`: its ender ended the workflow execution before it wrote the end (the worker,
 * with its task token), so the end does not owe that.
 */
interface EndedExecution {
  readonly executionEnded?: boolean;
}

/** The event that gives a prediction the ending it is owed (`endingOwed`), by whoever found it owed. */
export const owedEndingEvent = (
  owed: OwedEnding,
  atMs: number,
  by: Ender,
): Extract<PredictionEvent, { type: 'failed' | 'canceled' }> =>
  owed.type === 'canceled'
    ? { type: 'canceled', atMs, by, error: owed.error }
    : { type: 'failed', atMs, by, error: owed.error, runtimeMs: null };

const effectsOf = (prediction: Prediction, by: Ender, executionEnded: boolean): SideEffect[] => [
  ...(by === 'workflow' || executionEnded ? [] : (['stop'] as const)),
  ...(notifiesCompletion(prediction) ? (['notify'] as const) : []),
];

const base = (prediction: Prediction): PredictionBase => ({
  id: prediction.id,
  model: prediction.model,
  owner: prediction.owner,
  input: prediction.input,
  webhook: prediction.webhook,
  webhookEvents: prediction.webhookEvents,
  source: prediction.source,
  createdAt: prediction.createdAt,
  apiBase: prediction.apiBase,
  streamKey: prediction.streamKey,
  waiter: prediction.waiter,
  deadlineAt: prediction.deadlineAt,
  logs: prediction.logs,
  hold: prediction.hold,
  attempts: prediction.attempts,
  sweepAtMs: prediction.sweepAtMs,
});

const finished = (
  prediction: ActivePrediction,
  atMs: number,
  runtimeMs: number | null,
  by: Ender,
  policy: PredictionPolicy,
  report: RunReport & EndedExecution = {},
) => ({
  ...base(prediction),
  logs: report.logs === undefined ? prediction.logs : keepLogTail(report.logs),
  startedAt: prediction.startedAt,
  completedAt: formatTimestamp(atMs),
  runtimeMs,
  predictTimeMs: report.predictTimeMs ?? null,
  modelMetrics: keepModelMetrics(report.modelMetrics ?? null),
  streamed:
    report.streamed === undefined
      ? prediction.status === 'processing'
        ? prediction.streamed
        : null
      : report.streamed === null
        ? null
        : keepStreamed(report.streamed),
  costKopecks: runtimeMs === null ? 0 : costInKopecks(runtimeMs, policy.pricePerSecondMicro),
  effects: effectsOf(prediction, by, report.executionEnded === true),
  dataRemoved: false,
});

const withDeadline = (prediction: Prediction, limits: PhaseLimits): Prediction => ({
  ...prediction,
  sweepAtMs: sweepDeadline(prediction, limits),
});

/**
 * The sweeper may look at a prediction earlier than it must, never later. A claim keeps the time
 * its waiting phase had (which comes before its run's): its index entry is not moved on every
 * claim, and the sweeper puts off the rare run still going then.
 */
const keepingEarlierSweep = (prediction: Prediction, earlierMs: number | null): Prediction =>
  earlierMs === null || prediction.sweepAtMs === null || earlierMs >= prediction.sweepAtMs
    ? prediction
    : { ...prediction, sweepAtMs: earlierMs };

const finishedError = (prediction: TerminalPrediction): PrognozError =>
  new PrognozError('prediction_finished', `prediction ${prediction.id} has already ${prediction.status}`);

const claimLost = (prediction: Prediction, claim: string): PrognozError =>
  new PrognozError('claim_lost', `the claim ${claim} on prediction ${prediction.id} is no longer its current one`);

/**
 * The one state machine of a prediction (interface: Statuses). Terminal states never change; a cancel of a
 * canceled prediction is not an error, it returns the prediction unchanged. A worker's report
 * counts only for its own claim, so a run that was taken over can never end the prediction.
 */
export const transition = (
  prediction: Prediction,
  event: PredictionEvent,
  policy: PredictionPolicy,
): Result<Prediction, PrognozError> => {
  if (isTerminal(prediction)) {
    if (event.type === 'canceled' && prediction.status === 'canceled') return ok(prediction);
    return err(finishedError(prediction));
  }
  const { limits } = policy;
  const current = prediction.status === 'processing' ? prediction.claim : null;
  switch (event.type) {
    case 'queued':
      if (prediction.status !== 'starting' && prediction.status !== 'pending') {
        return err(new PrognozError('invalid_transition', `cannot queue a ${prediction.status} prediction`));
      }
      return ok(
        withDeadline(
          { ...prediction, status: 'queued', startedAt: null, queuedAt: formatTimestamp(event.atMs) },
          limits,
        ),
      );
    case 'deferred':
      // From `queued` too, for a late start that was marked queued before it failed.
      if (!(prediction.status === 'starting' || (prediction.status === 'queued' && prediction.attempts === 0))) {
        return err(
          new PrognozError('invalid_transition', `cannot put off the start of a ${prediction.status} prediction`),
        );
      }
      return ok(withDeadline({ ...base(prediction), status: 'pending', startedAt: null }, limits));
    case 'claimed':
      if (prediction.status === 'processing') {
        return err(new PrognozError('invalid_transition', `prediction ${prediction.id} is already claimed`));
      }
      if (attemptsUsed(prediction, limits)) {
        return err(
          new PrognozError(
            'invalid_transition',
            `prediction ${prediction.id} has used its ${limits.maxAttempts} attempts`,
          ),
        );
      }
      return ok(
        keepingEarlierSweep(
          withDeadline(
            {
              ...prediction,
              status: 'processing',
              startedAt: formatTimestamp(event.atMs),
              claim: event.claim,
              attempts: prediction.attempts + 1,
              progress: null,
              streamed: [],
            },
            limits,
          ),
          prediction.sweepAtMs,
        ),
      );
    case 'lost': {
      if (prediction.status !== 'processing' || current !== event.claim) return err(claimLost(prediction, event.claim));
      const requeued: Queued = {
        ...base(prediction),
        attempts: event.handedBack ? prediction.attempts - 1 : prediction.attempts,
        status: 'queued',
        startedAt: null,
        queuedAt: formatTimestamp(event.atMs),
      };
      return ok(withDeadline(requeued, limits));
    }
    case 'succeeded':
      if (current !== event.claim) return err(claimLost(prediction, event.claim));
      return ok(
        withDeadline(
          {
            ...finished(prediction, event.atMs, event.runtimeMs, 'worker', policy, event),
            status: 'succeeded',
            output: event.output,
            runtimeMs: event.runtimeMs,
          },
          limits,
        ),
      );
    case 'failed':
      if (event.claim !== undefined && current !== event.claim) return err(claimLost(prediction, event.claim));
      return ok(
        withDeadline(
          {
            ...finished(prediction, event.atMs, event.runtimeMs, event.by, policy, event),
            status: 'failed',
            error: event.error,
          },
          limits,
        ),
      );
    case 'canceled': {
      if (event.claim !== undefined && current !== event.claim) return err(claimLost(prediction, event.claim));
      // Billed only for the model time used before the cancel.
      const runtimeMs =
        event.runtimeMs !== undefined
          ? event.runtimeMs
          : prediction.startedAt === null
            ? null
            : Math.max(0, event.atMs - parseTimestamp(prediction.startedAt));
      return ok(
        withDeadline(
          {
            ...finished(prediction, event.atMs, runtimeMs, event.by, policy, event),
            status: 'canceled',
            error: event.error ?? null,
          },
          limits,
        ),
      );
    }
  }
};
