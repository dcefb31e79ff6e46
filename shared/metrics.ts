import type { AttemptOutcome } from './ports/delivery-log.ts';

/**
 * The operational signals prognoz's code emits (as EMF, through Powertools Metrics:
 * shared/adapters/powertools-metrics.ts) and its dashboard and alarms read (infra/). Both sides
 * take the names and dimensions from here, so a graph cannot read a metric under another name
 * than the one emitted; test/infra/operational-metrics.test.ts checks that every metric infra
 * reads is one of these and that the code emits it.
 */

/** The CloudWatch namespace of prognoz's own metrics. */
export const METRICS_NAMESPACE = 'prognoz';

/**
 * One count the code emits. CloudWatch tells metrics apart by their whole set of dimensions, so
 * each datum carries exactly `dimensions` (no `service`, which Powertools would add), and a graph
 * or alarm reads it with exactly these.
 */
export interface MetricDefinition<D extends string = string> {
  readonly namespace: typeof METRICS_NAMESPACE;
  readonly name: string;
  readonly dimensions: readonly D[];
}

const counted = <const D extends string>(name: string, dimensions: readonly D[]): MetricDefinition<D> => ({
  namespace: METRICS_NAMESPACE,
  name,
  dimensions,
});

/**
 * A prediction ended, counted once per ending (whoever ended it: the worker, a cancel, Finalize,
 * the sweeper) where the end is written. `Model`: its model's id; `Status`: a terminal status.
 */
export const PREDICTIONS_ENDED = counted('PredictionsEnded', ['Model', 'Status']);

/**
 * A worker stopped renewing its lease mid-run: the worker that next received the job found the
 * claim lost and sent the prediction back to the queue. `Model`: the model's id.
 */
export const WORKERS_LOST = counted('WorkersLost', ['Model']);

/** What became of one attempt at delivering a webhook: `AttemptOutcome`, or `error` when it broke before an answer. */
export const WEBHOOK_ATTEMPT_OUTCOMES = ['delivered', 'failed', 'dead_lettered', 'error'] as const satisfies readonly (
  AttemptOutcome | 'error'
)[];
export type WebhookAttemptOutcome = (typeof WEBHOOK_ATTEMPT_OUTCOMES)[number];

/** One attempt at delivering a webhook (a skipped one, for a prediction without a webhook, is none). `Outcome`: `WEBHOOK_ATTEMPT_OUTCOMES`. */
export const WEBHOOK_ATTEMPTS = counted('WebhookAttempts', ['Outcome']);

/** Every metric the code emits, by the name it is exported under. */
export const METRICS = { PREDICTIONS_ENDED, WORKERS_LOST, WEBHOOK_ATTEMPTS } as const;

/**
 * Counts one occurrence of `metric`, with a value for each of its dimensions: how the code emits,
 * injected by the processes that wire it (a use case never knows Powertools).
 */
export type CountMetric = <D extends string>(
  metric: MetricDefinition<D>,
  dimensions: Readonly<Record<D, string>>,
) => void;
