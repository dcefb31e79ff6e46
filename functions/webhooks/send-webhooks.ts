import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { dynamoAccountStore } from '../../shared/adapters/account-store.ts';
import { dynamoDeliveryLog } from '../../shared/adapters/delivery-log.ts';
import { s3OutputStore } from '../../shared/adapters/output-store.ts';
import { dynamoPredictionStore } from '../../shared/adapters/prediction-store.ts';
import { sqsRetryLater } from '../../shared/adapters/webhook-queue.ts';
import { guardedPoster } from '../../shared/adapters/webhook-transport.ts';
import { presentPrediction } from '../../shared/api/prediction-view.ts';
import { outputBucketFromEnv, tableNameFromEnv } from '../../shared/config.ts';
import { systemClock } from '../../shared/domain/clock.ts';
import { deliverWebhook, type DeliveryDeps } from '../../shared/use-cases/deliver-webhook.ts';
import { webhookEventOf, webhookMessage } from '../../shared/workflow/messages.ts';
import { retryDelaysSeconds } from '../../shared/workflow/webhook-policy.ts';
import { logger } from '../http/logger.ts';

let deps: DeliveryDeps | undefined;
const depsFromEnv = (): DeliveryDeps => {
  const table = tableNameFromEnv();
  const outputs = s3OutputStore(outputBucketFromEnv());
  return (deps ??= {
    store: dynamoPredictionStore(table),
    // The body is the prediction as GET shows it, without `cost`.
    present: (prediction) => presentPrediction(prediction, outputs, { includeCost: false }),
    accounts: dynamoAccountStore(table),
    log: dynamoDeliveryLog(table),
    clock: systemClock,
    post: guardedPoster({ allowLoopback: process.env.PROGNOZ_ALLOW_LOOPBACK === 'true' }),
  });
};

let retryLater: ReturnType<typeof sqsRetryLater> | undefined;
/** Hides a failed message for the next delay, so retries back off rather than come straight back. */
const backOff = async (record: SQSRecord, delay: number): Promise<void> => {
  const queueUrl = process.env.PROGNOZ_WEBHOOK_QUEUE_URL;
  if (!queueUrl) return;
  await (retryLater ??= sqsRetryLater(queueUrl))(record.receiptHandle, delay);
};

/** The webhook sender: SQS event source with partial batch failures; SQS retries, then dead-letters. */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const failures: string[] = [];
  for (const record of event.Records) {
    const attempt = Math.max(1, Number(record.attributes.ApproximateReceiveCount) || 1);
    try {
      const message = webhookMessage.parse(JSON.parse(record.body));
      const result = await deliverWebhook(depsFromEnv(), message, attempt);
      logger.info('webhook attempt', {
        predictionId: message.predictionId,
        event: webhookEventOf(message),
        attempt,
        result: result.kind,
      });
      if (result.kind !== 'failed') continue;
      // After the last attempt the message comes straight back, to be moved to the dead-letter queue.
      await backOff(record, result.final ? 0 : (retryDelaysSeconds()[attempt - 1] ?? 0));
    } catch (error) {
      logger.error('webhook delivery broke', {
        messageId: record.messageId,
        error: error instanceof Error ? error.message : String(error),
      });
    }
    failures.push(record.messageId);
  }
  return { batchItemFailures: failures.map((itemIdentifier) => ({ itemIdentifier })) };
};
