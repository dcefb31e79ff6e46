import { dynamoPredictionStore } from '../../shared/adapters/prediction-store.ts';
import { sqsWebhookNotifier } from '../../shared/adapters/webhook-queue.ts';
import { tableNameFromEnv, webhookQueueUrlFromEnv } from '../../shared/config.ts';
import { systemClock } from '../../shared/domain/clock.ts';
import { finalizePrediction } from '../../shared/use-cases/finalize-prediction.ts';
import { finalizeInput, type FinalizeOutput } from '../../shared/workflow/messages.ts';

let deps: Parameters<typeof finalizePrediction>[0] | undefined;

/** The workflow's Finalize task, reached when Dispatch failed: input is the execution state with the caught error. */
export const handler = async (event: unknown): Promise<FinalizeOutput> => {
  deps ??= {
    store: dynamoPredictionStore(tableNameFromEnv()),
    notifier: sqsWebhookNotifier(webhookQueueUrlFromEnv()),
    clock: systemClock,
  };
  return finalizePrediction(deps, finalizeInput.parse(event));
};
