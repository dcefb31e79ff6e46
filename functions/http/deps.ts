import { setTimeout as sleep } from 'node:timers/promises';
import { dynamoPredictionStore, type PredictionStore } from '../../shared/adapters/prediction-store.ts';
import { sqsWebhookNotifier, type WebhookNotifier } from '../../shared/adapters/webhook-queue.ts';
import { sfnWorkflowClient, type WorkflowClient } from '../../shared/adapters/workflow-client.ts';
import { systemClock, type Clock } from '../../shared/domain/clock.ts';
import { randomIds, type IdGenerator } from '../../shared/domain/ids.ts';
import type { WebhookUrlPolicy } from '../../shared/domain/webhook-url.ts';
import { apiConfigFromEnv, type ApiConfig } from '../../shared/config.ts';

/** What the API handlers need, built once per process from the environment. */
export interface ApiDeps {
  readonly config: ApiConfig;
  readonly store: PredictionStore;
  readonly workflow: WorkflowClient;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly sleep: (ms: number) => Promise<void>;
  readonly webhookPolicy: WebhookUrlPolicy;
  readonly notifier: WebhookNotifier;
}

let deps: ApiDeps | undefined;

export const apiDeps = (): ApiDeps => {
  if (deps) return deps;
  const config = apiConfigFromEnv();
  deps = {
    config,
    store: dynamoPredictionStore(config.tableName),
    workflow: sfnWorkflowClient(),
    clock: systemClock,
    ids: randomIds,
    sleep: (ms) => sleep(ms),
    webhookPolicy: { allowLoopbackHttp: process.env.PROGNOZ_ALLOW_LOOPBACK === 'true' },
    notifier: sqsWebhookNotifier(config.webhookQueueUrl),
  };
  return deps;
};
