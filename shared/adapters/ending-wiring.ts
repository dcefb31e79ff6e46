import type { Clock } from '../domain/clock.ts';
import { isTerminal } from '../domain/prediction.ts';
import { PREDICTIONS_ENDED, type CountMetric } from '../metrics.ts';
import type { PredictionStore } from '../ports/prediction-store.ts';
import { dynamo } from './aws-clients.ts';
import { sqsEndingTeller, type ReportFailure } from './ending-notices.ts';
import { powertoolsCounter } from './powertools-metrics.ts';
import { dynamoPredictionStore } from './prediction-store.ts';
import { sqsWebhookNotifier } from './webhook-notifier.ts';

/** Where a process's endings go: the table, the webhook queue, and how long ended predictions are kept. */
export interface EndingResources {
  readonly tableName: string;
  readonly webhookQueueUrl: string;
  readonly retentionSeconds: number;
}

/**
 * The store, counting every ending it writes (PREDICTIONS_ENDED, by model and status). Every end,
 * whoever makes it (a cancel, the worker, Finalize, the sweeper), is one write that moves a
 * prediction from an active status to a terminal one, `replace`, which succeeds once: so each
 * ending is counted once, and a repeated or lost end not at all.
 */
export const countingEnds = <S extends PredictionStore>(store: S, count: CountMetric): S => ({
  ...store,
  replace: async (next, expected) => {
    const written = await store.replace(next, expected);
    if (written && isTerminal(next) && !isTerminal(expected))
      count(PREDICTIONS_ENDED, { Model: next.model, Status: next.status });
    return written;
  },
});

/**
 * What every process that ends predictions needs, wired the one way (the use cases' EffectDeps
 * less how an execution is stopped): the prediction store, which counts the endings it writes, the
 * webhook notifier, and the teller of waiting requests; `warn` reports lost notices and counts.
 */
export const endingWiring = (resources: EndingResources, clock: Clock, warn: ReportFailure) => ({
  store: countingEnds(
    dynamoPredictionStore(resources.tableName, dynamo(), resources.retentionSeconds, () => clock.now()),
    powertoolsCounter(warn),
  ),
  notifier: sqsWebhookNotifier(resources.webhookQueueUrl),
  endingTeller: sqsEndingTeller(warn),
});
