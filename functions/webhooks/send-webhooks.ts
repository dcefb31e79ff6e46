import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { processSqsBatch } from '../sqs-batch.ts';
import { dynamoAccountStore } from '../../shared/adapters/account-store.ts';
import { dynamo } from '../../shared/adapters/aws-clients.ts';
import { dynamoDeliveryLog } from '../../shared/adapters/delivery-log.ts';
import { s3OutputReader } from '../../shared/adapters/output-store-reader.ts';
import { powertoolsCounter } from '../../shared/adapters/powertools-metrics.ts';
import { dynamoPredictionStore } from '../../shared/adapters/prediction-store.ts';
import { sqsRetryLater } from '../../shared/adapters/webhook-notifier.ts';
import { guardedPoster } from '../../shared/adapters/webhook-poster.ts';
import { presentPrediction } from '../../shared/api/prediction-view.ts';
import { webhookSenderConfigFromEnv, type WebhookSenderConfig } from '../../shared/config/webhook-sender.ts';
import { systemClock, type Clock } from '../../shared/domain/clock.ts';
import { WEBHOOK_ATTEMPTS, type CountMetric, type WebhookAttemptOutcome } from '../../shared/metrics.ts';
import type { ModelCatalog } from '../../shared/catalog/model-catalog.ts';
import { deliverWebhook, type DeliveryDeps, type DeliveryResult } from '../../shared/use-cases/deliver-webhook.ts';
import { webhookEventOf, webhookMessage } from '../../shared/workflow/messages.ts';
import { serviceLogger } from '../service-logger.ts';
import { lambdaEntry, once } from '../lambda-entry.ts';
import { processModelCatalog } from '../model-catalog.ts';

const logger = serviceLogger('webhooks');

interface Sender {
  readonly deps: DeliveryDeps;
  /** Hides a failed message for the next delay, so retries back off rather than come straight back. */
  readonly backOff: (record: SQSRecord, delaySeconds: number) => Promise<void>;
  readonly retryDelaysSeconds: readonly number[];
  readonly count: CountMetric;
}

/** What an attempt counts as (WEBHOOK_ATTEMPTS), as the delivery log records it; a skipped delivery is no attempt. */
const outcomeOf = (result: DeliveryResult): WebhookAttemptOutcome | null =>
  result.kind === 'skipped'
    ? null
    : result.kind === 'delivered'
      ? 'delivered'
      : result.final
        ? 'dead_lettered'
        : 'failed';

const senderOf = (config: WebhookSenderConfig, clock: Clock, catalog: ModelCatalog): Sender => {
  const outputs = s3OutputReader(config.outputBucket);
  const retryLater = sqsRetryLater(config.webhookQueueUrl);
  return {
    deps: {
      store: dynamoPredictionStore(config.tableName, dynamo(), config.retentionSeconds, () => clock.now()),
      // The body is the prediction as GET shows it, without `cost`.
      present: (prediction) => presentPrediction(prediction, outputs, { includeCost: false, catalog }),
      accounts: dynamoAccountStore(config.tableName),
      log: dynamoDeliveryLog(config.tableName, dynamo(), config.retentionSeconds),
      clock,
      post: guardedPoster({ allowLoopback: config.allowLoopback }),
    },
    backOff: (record, delaySeconds) => retryLater(record.receiptHandle, delaySeconds),
    retryDelaysSeconds: config.retryDelaysSeconds,
    count: powertoolsCounter((message, fields) => logger.warn(message, fields)),
  };
};

/** The webhook sender: SQS event source with partial batch failures; SQS retries, then dead-letters. */
export const handler = lambdaEntry((env) => {
  const sender = once(() => senderOf(webhookSenderConfigFromEnv(env), systemClock, processModelCatalog()));
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const { deps, backOff, retryDelaysSeconds, count } = sender();
    return processSqsBatch(event, async (record, attempt) => {
      let failed: unknown;
      let counted = false;
      try {
        const message = webhookMessage.parse(JSON.parse(record.body));
        const result = await deliverWebhook(deps, message, attempt);
        logger.info('webhook attempt', {
          predictionId: message.predictionId,
          event: webhookEventOf(message),
          attempt,
          result: result.kind,
        });
        const outcome = outcomeOf(result);
        if (outcome !== null) {
          count(WEBHOOK_ATTEMPTS, { Outcome: outcome });
          counted = true;
        }
        if (result.kind !== 'failed') return;
        // After the last attempt the message comes straight back, to be moved to the dead-letter queue.
        await backOff(record, result.final ? 0 : (retryDelaysSeconds[attempt - 1] ?? 0));
        failed = new Error(`the webhook of ${message.predictionId} was not delivered (attempt ${attempt})`);
      } catch (error) {
        logger.error('webhook delivery broke', {
          messageId: record.messageId,
          error: error instanceof Error ? error.message : String(error),
        });
        // It broke before an answer (or after one, while backing off: that attempt is counted already).
        if (!counted) count(WEBHOOK_ATTEMPTS, { Outcome: 'error' });
        failed = error;
      }
      throw failed;
    });
  };
});
