import { parseTimestamp } from './clock.ts';
import type { AccountId, PredictionId } from './ids.ts';

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

/**
 * Where a prediction's input lives: in the prediction itself when small, else as an object in the
 * outputs bucket, so that every later write of the prediction stays small (architecture: Data).
 */
export type StoredInput =
  | { readonly kind: 'inline'; readonly value: Readonly<Record<string, unknown>> }
  | { readonly kind: 'object'; readonly key: string; readonly bytes: number };

/**
 * The largest input (its JSON) kept in the prediction itself. Each KB of an item costs a write
 * unit on every later write of it (five or more in a prediction's life, transactions counting
 * twice), which past ~2 KB is more than an object's PUT and its reads cost.
 */
export const INPUT_INLINE_BYTES = 2048;

/** Where an input whose JSON is `bytes` long goes: inline up to INPUT_INLINE_BYTES, else in the bucket. */
export const inputPlacement = (bytes: number): 'inline' | 'object' =>
  bytes <= INPUT_INLINE_BYTES ? 'inline' : 'object';

export interface PredictionBase {
  readonly id: PredictionId;
  readonly model: string;
  readonly owner: AccountId;
  /** The validated input, defaults filled in: inline, or a reference to it. */
  readonly input: StoredInput;
  readonly webhook: string | null;
  /** The webhook events asked for; null is the interface's default, the end only (interface: Webhooks). */
  readonly webhookEvents: readonly WebhookEvent[] | null;
  readonly source: 'api';
  readonly createdAt: string;
  /** The API's address as the caller reached it, for the prediction's links (`urls`). */
  readonly apiBase: string | null;
  /** The secret in its stream URL: the stream is opened without a token (as Replicate's clients do). */
  readonly streamKey: string | null;
  /** The inbox of the request waiting for its end (`Prefer: wait`), told when it ends; null when none waits. */
  readonly waiter: string | null;
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

export interface Queued extends PredictionBase {
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
  /** What else the model measured of its run (Cog's custom metrics), when it did and they fit. */
  readonly modelMetrics: Readonly<Record<string, unknown>> | null;
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

/**
 * Whether an event of the prediction goes to its webhook: with no filter only its end (interface: Webhooks),
 * with one, the events it names. The one rule the worker, the sender and the end follow.
 */
export const webhookWants = (prediction: Pick<Prediction, 'webhook' | 'webhookEvents'>, event: WebhookEvent): boolean =>
  prediction.webhook !== null &&
  (prediction.webhookEvents === null ? event === 'completed' : prediction.webhookEvents.includes(event));

/** Whether the end of a prediction is sent to its webhook: always, unless a filter leaves `completed` out. */
export const notifiesCompletion = (prediction: Prediction): boolean => webhookWants(prediction, 'completed');

/** An ended prediction after its retention period: what the caller sent and the model made is gone. */
export const withDataRemoved = (prediction: TerminalPrediction): TerminalPrediction => {
  const removed = {
    ...prediction,
    input: { kind: 'inline', value: {} } as const,
    logs: '',
    streamed: null,
    dataRemoved: true,
  };
  return removed.status === 'succeeded' ? { ...removed, output: { kind: 'inline', value: null } } : removed;
};

/** The prediction once its owed side effects are done: nothing is left for the sweeper. */
export const withEffectsDone = (prediction: TerminalPrediction, done: readonly SideEffect[]): TerminalPrediction => {
  const effects = prediction.effects.filter((effect) => !done.includes(effect));
  return { ...prediction, effects, sweepAtMs: effects.length === 0 ? null : prediction.sweepAtMs };
};
