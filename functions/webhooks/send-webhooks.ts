import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { processSqsBatch } from '../sqs-batch.ts';
import { dynamoAccountStore } from '../../shared/adapters/account-store.ts';
import { dynamo } from '../../shared/adapters/aws-clients.ts';
import { dynamoDeliveryLog } from '../../shared/adapters/delivery-log.ts';
import { s3OutputReader } from '../../shared/adapters/output-reader.ts';
import { dynamoPredictionStore } from '../../shared/adapters/prediction-store.ts';
import { sqsRetryLater } from '../../shared/adapters/webhook-queue.ts';
import { guardedPoster } from '../../shared/adapters/webhook-transport.ts';
import { presentPrediction } from '../../shared/api/prediction-view.ts';
import { webhookSenderConfigFromEnv, type WebhookSenderConfig } from '../../shared/config/webhook-sender.ts';
import { systemClock, type Clock } from '../../shared/domain/clock.ts';
import { deliverWebhook, type DeliveryDeps } from '../../shared/use-cases/deliver-webhook.ts';
import { webhookEventOf, webhookMessage } from '../../shared/workflow/messages.ts';
import { serviceLogger } from '../service-logger.ts';
import { lambdaEntry, once } from '../lambda-entry.ts';

const logger = serviceLogger('webhooks');

interface Sender {
  readonly deps: DeliveryDeps;
  /** Hides a failed message for the next delay, so retries back off rather than come straight back. */
  readonly backOff: (record: SQSRecord, delaySeconds: number) => Promise<void>;
  readonly retryDelaysSeconds: readonly number[];
}

const senderOf = (config: WebhookSenderConfig, clock: Clock): Sender => {
  const outputs = s3OutputReader(config.outputBucket);
  const retryLater = sqsRetryLater(config.webhookQueueUrl);
  return {
    deps: {
      store: dynamoPredictionStore(config.tableName, dynamo(), config.retentionSeconds, () => clock.now()),
      // The body is the prediction as GET shows it, without `cost`.
      present: (prediction) => presentPrediction(prediction, outputs, { includeCost: false }),
      accounts: dynamoAccountStore(config.tableName),
      log: dynamoDeliveryLog(config.tableName, dynamo(), config.retentionSeconds),
      clock,
      post: guardedPoster({ allowLoopback: config.allowLoopback }),
    },
    backOff: (record, delaySeconds) => retryLater(record.receiptHandle, delaySeconds),
    retryDelaysSeconds: config.retryDelaysSeconds,
  };
};

/** The webhook sender: SQS event source with partial batch failures; SQS retries, then dead-letters. */
export const handler = lambdaEntry((env) => {
  const sender = once(() => senderOf(webhookSenderConfigFromEnv(env), systemClock));
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const { deps, backOff, retryDelaysSeconds } = sender();
    return processSqsBatch(event, async (record, attempt) => {
      let failed: unknown;
      try {
        const message = webhookMessage.parse(JSON.parse(record.body));
        const result = await deliverWebhook(deps, message, attempt);
        logger.info('webhook attempt', {
          predictionId: message.predictionId,
          event: webhookEventOf(message),
          attempt,
          result: result.kind,
        });
        if (result.kind !== 'failed') return;
        // After the last attempt the message comes straight back, to be moved to the dead-letter queue.
        await backOff(record, result.final ? 0 : (retryDelaysSeconds[attempt - 1] ?? 0));
        failed = new Error(`the webhook of ${message.predictionId} was not delivered (attempt ${attempt})`);
      } catch (error) {
        logger.error('webhook delivery broke', {
          messageId: record.messageId,
          error: error instanceof Error ? error.message : String(error),
        });
        failed = error;
      }
      throw failed;
    });
  };
});
