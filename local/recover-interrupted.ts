import { dynamo } from '../shared/adapters/aws-clients.ts';
import { sqsEndingTeller } from '../shared/adapters/ending-notices.ts';
import { dynamoPredictionStore } from '../shared/adapters/prediction-store.ts';
import { sqsWebhookNotifier } from '../shared/adapters/webhook-queue.ts';
import { sfnWorkflowClient } from '../shared/adapters/workflow-client.ts';
import type { SweeperConfig } from '../shared/config/sweeper.ts';
import type { Clock } from '../shared/domain/clock.ts';
import { ENDINGS } from '../shared/domain/endings.ts';
import { endPrediction, stoppingExecutions } from '../shared/use-cases/end-prediction.ts';

export const RESTART_ERROR = ENDINGS.restart;

/**
 * A restart loses what the emulators kept in memory (executions, queued jobs): every prediction
 * the previous run left unfinished ends `failed` here, through the same end as any other — its
 * hold released, its webhook queued — with the sweeper's configuration, as the sweeper would.
 */
export const recoverInterrupted = async (
  config: SweeperConfig,
  clock: Clock,
  log: (line: string) => void,
): Promise<void> => {
  const store = dynamoPredictionStore(config.tableName, dynamo(), config.retentionSeconds, () => clock.now());
  const effects = stoppingExecutions(
    {
      store,
      notifier: sqsWebhookNotifier(config.webhookQueueUrl),
      endingTeller: sqsEndingTeller((message, fields) => log(`${message}: ${JSON.stringify(fields)}`)),
      workflow: sfnWorkflowClient(),
      stateMachineArnOf: config.stateMachineArnOf,
    },
    RESTART_ERROR,
  );
  for (const stale of await store.listActive()) {
    await endPrediction(effects, stale.id, {
      type: 'failed',
      atMs: clock.now(),
      error: RESTART_ERROR,
      runtimeMs: null,
      by: 'sweeper',
    });
    log(`recovered prediction ${stale.id}: it was ${stale.status} when the runtime last stopped; now failed`);
  }
};
