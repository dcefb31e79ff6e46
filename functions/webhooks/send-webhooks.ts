import { ChangeMessageVisibilityCommand } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { dynamoAccountStore } from '../../shared/adapters/account-store.ts';
import { sqs } from '../../shared/adapters/aws-clients.ts';
import { dynamoPredictionStore } from '../../shared/adapters/prediction-store.ts';
import { tableNameFromEnv } from '../../shared/config.ts';
import { systemClock } from '../../shared/domain/clock.ts';
import { deliverWebhook, fetchPoster, type DeliveryDeps } from '../../shared/use-cases/deliver-webhook.ts';
import { webhookMessage } from '../../shared/workflow/messages.ts';
import { RETRY_POLICY } from '../../shared/workflow/webhook-policy.ts';
import { logger } from '../http/logger.ts';


let deps: DeliveryDeps | undefined;
const depsFromEnv = (): DeliveryDeps => {
  const table = tableNameFromEnv();
  return (deps ??= { store: dynamoPredictionStore(table), accounts: dynamoAccountStore(table), clock: systemClock, post: fetchPoster });
};

/** Hides a failed message for the next delay, so retries back off instead of coming straight back. */
const backOff = async (record: SQSRecord): Promise<void> => {
  const attempts = Number(record.attributes.ApproximateReceiveCount);
  const delays = RETRY_POLICY.retryDelaysSeconds;
  const delay = delays[Math.min(Math.max(attempts, 1), delays.length) - 1] ?? delays[0];
  const queueUrl = process.env.PROGNOZ_WEBHOOK_QUEUE_URL;
  if (!queueUrl) return;
  await sqs().send(new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: record.receiptHandle, VisibilityTimeout: delay }));
};

/** The webhook sender: SQS event source with partial batch failures; SQS retries, then dead-letters. */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const failures: string[] = [];
  for (const record of event.Records) {
    try {
      const message = webhookMessage.parse(JSON.parse(record.body));
      const result = await deliverWebhook(depsFromEnv(), message);
      logger.info('webhook attempt', { predictionId: message.predictionId, status: message.status, result: result.kind, attempt: record.attributes.ApproximateReceiveCount });
      if (result.kind !== 'failed') continue;
      await backOff(record);
    } catch (error) {
      logger.error('webhook delivery broke', { messageId: record.messageId, error: error instanceof Error ? error.message : String(error) });
    }
    failures.push(record.messageId);
  }
  return { batchItemFailures: failures.map((itemIdentifier) => ({ itemIdentifier })) };
};
