import { ChangeMessageVisibilityCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { sqs } from './aws-clients.ts';
import type { WebhookNotifier } from '../ports/webhook-notifier.ts';

export const sqsWebhookNotifier = (queueUrl: string, client: SQSClient = sqs()): WebhookNotifier => ({
  async notify(message) {
    await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(message) }));
  },
});

/**
 * Hides a webhook message that failed for `delaySeconds`, so that retries back off rather than
 * come straight back (0: at once, to be moved to the dead-letter queue).
 */
export const sqsRetryLater =
  (queueUrl: string, client: SQSClient = sqs()) =>
  async (receiptHandle: string, delaySeconds: number): Promise<void> => {
    await client.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: queueUrl,
        ReceiptHandle: receiptHandle,
        VisibilityTimeout: delaySeconds,
      }),
    );
  };
