import { formatTimestamp, parseTimestamp } from './clock.ts';
import { PrognozError } from './errors.ts';
import type { AccountId, PredictionId } from './ids.ts';
import { costInKopecks } from './pricing.ts';
import { err, ok, type Result } from './result.ts';
import { keepLogTail, keepStreamed, type RunReport } from './run-report.ts';

/** The statuses and their meaning (interface: Statuses). */
export const ACTIVE_STATUSES = ['pending', 'starting', 'queued', 'processing'] as const;
export const TERMINAL_STATUSES = ['succeeded', 'failed', 'canceled'] as const;
export type ActiveStatus = (typeof ACTIVE_STATUSES)[number];
export type TerminalStatus = (typeof TERMINAL_STATUSES)[number];
export type PredictionStatus = ActiveStatus | TerminalStatus;

export const isTerminalStatus = (status: PredictionStatus): status is TerminalStatus =>
  (TERMINAL_STATUSES as readonly string[]).includes(status);

/**
 * What is still owed after a prediction ended, done after the status write (which cannot include
 * them) and retried until done: ending its workflow execution, and queueing its webhook.
 */
export const SIDE_EFFECTS = ['stop', 'notify'] as const;
export type SideEffect = (typeof SIDE_EFFECTS)[number];

/**
 * What a webhook may be sent for (`webhook_events_filter`): the run starting, new output, new
 * logs, and the end. Without a filter, only the end (interface: Webhooks).
 */
export const WEBHOOK_EVENTS = ['start', 'output', 'logs', 'completed'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** Where a model's output lives: in the prediction itself, or as an object in the outputs bucket. */
export type StoredOutput =
  | { readonly kind: 'inline'; readonly value: unknown }
  | { readonly kind: 'object'; readonly key: string; readonly bytes: number };

interface PredictionBase {
  readonly id: PredictionId;
  readonly model: string;
  readonly owner: AccountId;
  /** The validated input, defaults filled in. */
  readonly input: Readonly<Record<string, unknown>>;
  readonly webhook: string | null;
  /** The webhook events asked for; null is the spec's default, the end only. */
  readonly webhookEvents: readonly WebhookEvent[] | null;
  readonly source: 'api';
  readonly createdAt: string;
  /** The API's address as the caller reached it, for the prediction's links (`urls`). */
  readonly apiBase: string | null;
  /** The secret in its stream URL: the stream is opened without a token (as Replicate's clients do). */
  readonly streamKey: string | null;
  /** When it is canceled if it has not ended by then (`Cancel-After`). */
  readonly deadlineAt: string | null;
  /** The model's log text so far (the tail, LOGS_KEPT_CHARS). */
  readonly logs: string;
  /** Funds reserved while in flight, in the month they count against; released when it ends. */
  readonly hold: Hold;
  /** How many times a worker has claimed it (less the runs handed back); above 1 means a lost run was run again. */
  readonly attempts: number;
  /**
   * When the sweeper must look at it if nothing else has moved it on (epoch ms): the end of the
   * phase it is in, or of the grace for its side effects. Null once nothing can be owed.
   */
  readonly sweepAtMs: number | null;
}

export interface Hold {
  readonly kopecks: number;
  /** `2026-11`: the month whose spend and limit this prediction counts against. */
  readonly month: string;
}

interface Starting extends PredictionBase {
  readonly status: 'pending' | 'starting';
  readonly startedAt: null;
}

interface Queued extends PredictionBase {
  readonly status: 'queued';
  readonly startedAt: null;
  /** When it entered the model's queue (again, after a lost run). */
  readonly queuedAt: string;
}

interface Processing extends PredictionBase {
  readonly status: 'processing';
  /** When the worker running it claimed it: model time and the run limit count from here. */
  readonly startedAt: string;
  /** The worker's claim: only that worker may report this attempt's result. */
  readonly claim: string;
  /** Fraction of the work done (0–1) as the model reports it, when it does. */
  readonly progress: number | null;
  /** The output pieces the model has streamed so far (null once they outgrew STREAMED_KEPT_CHARS). */
  readonly streamed: readonly string[] | null;
}

interface Finished extends PredictionBase {
  readonly startedAt: string | null;
  readonly completedAt: string | null;
  /** Model time in whole milliseconds; null when the model never ran. */
  readonly runtimeMs: number | null;
  /** The model's own measure of its run (`metrics.predict_time`), when it gave one. */
  readonly predictTimeMs: number | null;
  /** Every output piece the model streamed, when it streamed and they fit. */
  readonly streamed: readonly string[] | null;
  readonly costKopecks: number;
  readonly effects: readonly SideEffect[];
  /** Its input, output and logs were deleted at the end of the retention period; the record stays a while. */
  readonly dataRemoved: boolean;
}

export interface Succeeded extends Finished {
  readonly status: 'succeeded';
  readonly output: StoredOutput;
  readonly runtimeMs: number;
}

export interface Failed extends Finished {
  readonly status: 'failed';
  readonly error: string;
}

export interface Canceled extends Finished {
  readonly status: 'canceled';
  /** Why, when the service canceled it (its deadline passed); null for a caller's cancel. */
  readonly error: string | null;
}

export type ActivePrediction = Starting | Queued | Processing;
export type TerminalPrediction = Succeeded | Failed | Canceled;
export type Prediction = ActivePrediction | TerminalPrediction;

export const isTerminal = (prediction: Prediction): prediction is TerminalPrediction =>
  isTerminalStatus(prediction.status);

export const parseCreatedAt = (prediction: Prediction): number => parseTimestamp(prediction.createdAt);

/** The limits a model sets on its predictions' phases (interface: Queue wait and lost workers). */
export interface PhaseLimits {
  /** Longest wait in the model's queue, each time it waits there. */
  readonly queueSeconds: number;
  /** Longest run, counted from the worker's claim. */
  readonly runSeconds: number;
  /** How long a claim lives unrenewed: a worker silent this long is lost. */
  readonly leaseSeconds: number;
  /** Claims a prediction may have: a run lost this many times ends failed. */
  readonly maxAttempts: number;
}

export interface PredictionPolicy {
  /** Price of the prediction's model, micro-roubles per second. */
  readonly pricePerSecondMicro: bigint;
  readonly limits: PhaseLimits;
}

/** How long after its insert a prediction may stay `starting` before the sweeper starts it. */
export const START_GRACE_MS = 30_000;
/** How long after the end the sweeper leaves owed side effects to the one who ended it. */
export const EFFECTS_GRACE_MS = 30_000;

/**
 * When the sweeper must look at a prediction in this status: when it has overstayed its phase
 * (its run deadline for a lost worker counts a queue wait after the lease ran out), or when its
 * side effects are overdue.
 */
export const sweepDeadline = (prediction: Prediction, limits: PhaseLimits): number | null => {
  const phaseEnd = phaseDeadline(prediction, limits);
  if (isTerminal(prediction) || prediction.deadlineAt === null || phaseEnd === null) return phaseEnd;
  // A running prediction's worker stops it at its deadline; the sweeper steps in only if that worker is lost.
  const grace = prediction.status === 'processing' ? limits.leaseSeconds * 1000 : 0;
  return Math.min(phaseEnd, parseTimestamp(prediction.deadlineAt) + grace);
};

const phaseDeadline = (prediction: Prediction, limits: PhaseLimits): number | null => {
  switch (prediction.status) {
    case 'pending':
    case 'starting':
      return parseTimestamp(prediction.createdAt) + START_GRACE_MS;
    case 'queued':
      return parseTimestamp(prediction.queuedAt) + limits.queueSeconds * 1000;
    case 'processing':
      return (
        parseTimestamp(prediction.startedAt) + (limits.runSeconds + limits.leaseSeconds + limits.queueSeconds) * 1000
      );
    case 'succeeded':
    case 'failed':
    case 'canceled':
      if (prediction.effects.length === 0) return null;
      return parseTimestamp(prediction.completedAt ?? prediction.createdAt) + EFFECTS_GRACE_MS;
  }
};

export interface NewPrediction {
  readonly id: PredictionId;
  readonly model: string;
  readonly owner: AccountId;
  readonly input: Readonly<Record<string, unknown>>;
  readonly webhook: string | null;
  readonly webhookEvents?: readonly WebhookEvent[] | null;
  readonly apiBase?: string | null;
  readonly streamKey?: string | null;
  /** `Cancel-After`, in seconds from creation. */
  readonly cancelAfterSeconds?: number | null;
  readonly nowMs: number;
  readonly hold: Hold;
}

export const createPrediction = (spec: NewPrediction): Prediction => {
  const deadlineMs = spec.cancelAfterSeconds == null ? null : spec.nowMs + spec.cancelAfterSeconds * 1000;
  return {
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
    deadlineAt: deadlineMs === null ? null : formatTimestamp(deadlineMs),
    logs: '',
    hold: spec.hold,
    attempts: 0,
    status: 'starting',
    startedAt: null,
    // Looked at once its start is overdue, or at its deadline if that comes first.
    sweepAtMs: Math.min(spec.nowMs + START_GRACE_MS, deadlineMs ?? Infinity),
  };
};

/**
 * Who ends a prediction. The workflow's own Finalize needs no one to stop its execution; anyone
 * else leaves the execution to be ended (`stop`).
 */
export type Ender = 'workflow' | 'worker' | 'api' | 'sweeper';

/** What can happen to a prediction. Every change of status goes through `transition`. */
export type PredictionEvent =
  | { readonly type: 'queued'; readonly atMs: number }
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
    } & RunReport)
  | ({
      readonly type: 'failed';
      readonly atMs: number;
      readonly error: string;
      readonly runtimeMs: number | null;
      readonly by: Ender;
      /** When a worker reports, only for its own claim. */
      readonly claim?: string;
    } & RunReport)
  | ({
      readonly type: 'canceled';
      readonly atMs: number;
      readonly by: Ender;
      /** Why the service canceled it (its deadline); none for a caller's cancel. */
      readonly error?: string;
      /** When its worker ends it (at its deadline), only for its own claim and with the time it ran. */
      readonly claim?: string;
      readonly runtimeMs?: number | null;
    } & RunReport);

/**
 * Whether an event of the prediction goes to its webhook: with no filter only its end (interface: Webhooks),
 * with one, the events it names. The one rule the worker, the sender and the end follow.
 */
export const webhookWants = (prediction: Pick<Prediction, 'webhook' | 'webhookEvents'>, event: WebhookEvent): boolean =>
  prediction.webhook !== null &&
  (prediction.webhookEvents === null ? event === 'completed' : prediction.webhookEvents.includes(event));

/** Whether the end of a prediction is sent to its webhook: always, unless a filter leaves `completed` out. */
export const notifiesCompletion = (prediction: Prediction): boolean => webhookWants(prediction, 'completed');

const effectsOf = (prediction: Prediction, by: Ender): SideEffect[] => [
  ...(by === 'workflow' ? [] : (['stop'] as const)),
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
  report: RunReport = {},
) => ({
  ...base(prediction),
  logs: report.logs === undefined ? prediction.logs : keepLogTail(report.logs),
  startedAt: prediction.startedAt,
  completedAt: formatTimestamp(atMs),
  runtimeMs,
  predictTimeMs: report.predictTimeMs ?? null,
  streamed:
    report.streamed === undefined
      ? prediction.status === 'processing'
        ? prediction.streamed
        : null
      : report.streamed === null
        ? null
        : keepStreamed(report.streamed),
  costKopecks: runtimeMs === null ? 0 : costInKopecks(runtimeMs, policy.pricePerSecondMicro),
  effects: effectsOf(prediction, by),
  dataRemoved: false,
});

const withDeadline = (prediction: Prediction, limits: PhaseLimits): Prediction => ({
  ...prediction,
  sweepAtMs: sweepDeadline(prediction, limits),
});

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
    case 'claimed':
      if (prediction.status === 'processing') {
        return err(new PrognozError('invalid_transition', `prediction ${prediction.id} is already claimed`));
      }
      if (prediction.attempts >= limits.maxAttempts) {
        return err(
          new PrognozError(
            'invalid_transition',
            `prediction ${prediction.id} has used its ${limits.maxAttempts} attempts`,
          ),
        );
      }
      return ok(
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

/** An ended prediction after its retention period: what the caller sent and the model made is gone. */
export const withDataRemoved = (prediction: TerminalPrediction): TerminalPrediction => {
  const removed = { ...prediction, input: {}, logs: '', streamed: null, dataRemoved: true };
  return removed.status === 'succeeded' ? { ...removed, output: { kind: 'inline', value: null } } : removed;
};

/** The prediction once its owed side effects are done: nothing is left for the sweeper. */
export const withEffectsDone = (prediction: TerminalPrediction, done: readonly SideEffect[]): TerminalPrediction => {
  const effects = prediction.effects.filter((effect) => !done.includes(effect));
  return { ...prediction, effects, sweepAtMs: effects.length === 0 ? null : prediction.sweepAtMs };
};
