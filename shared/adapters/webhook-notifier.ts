import type { SQSClient } from '@aws-sdk/client-sqs';
import { sqsSdkAndClient } from './sqs-client.ts';
import type { WebhookNotifier } from '../ports/webhook-notifier.ts';

export const sqsWebhookNotifier = (queueUrl: string, given?: SQSClient): WebhookNotifier => {
  const sdk = sqsSdkAndClient(given);
  return {
    async notify(message) {
      const [{ SendMessageCommand }, sqs] = await sdk();
      await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(message) }));
    },
  };
};

/**
 * Hides a webhook message that failed for `delaySeconds`, so that retries back off rather than
 * come straight back (0: at once, to be moved to the dead-letter queue).
 */
export const sqsRetryLater = (queueUrl: string, given?: SQSClient) => {
  const sdk = sqsSdkAndClient(given);
  return async (receiptHandle: string, delaySeconds: number): Promise<void> => {
    const [{ ChangeMessageVisibilityCommand }, sqs] = await sdk();
    await sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: queueUrl,
        ReceiptHandle: receiptHandle,
        VisibilityTimeout: delaySeconds,
      }),
    );
  };
};
