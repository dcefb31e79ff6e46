import type { Clock } from '../domain/clock.ts';
import { dynamo } from './aws-clients.ts';
import { sqsEndingTeller, type ReportFailure } from './ending-notices.ts';
import { dynamoPredictionStore } from './prediction-store.ts';
import { sqsWebhookNotifier } from './webhook-queue.ts';

/** Where a process's endings go: the table, the webhook queue, and how long ended predictions are kept. */
export interface EndingResources {
  readonly tableName: string;
  readonly webhookQueueUrl: string;
  readonly retentionSeconds: number;
}

/**
 * What every process that ends predictions needs, wired the one way (the use cases' EffectDeps
 * less how an execution is stopped): the prediction store, the webhook notifier, and the teller
 * of waiting requests, whose lost notices `warn` reports.
 */
export const endingWiring = (resources: EndingResources, clock: Clock, warn: ReportFailure) => ({
  store: dynamoPredictionStore(resources.tableName, dynamo(), resources.retentionSeconds, () => clock.now()),
  notifier: sqsWebhookNotifier(resources.webhookQueueUrl),
  endingTeller: sqsEndingTeller(warn),
});
