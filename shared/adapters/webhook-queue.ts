import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { sqs } from './aws-clients.ts';
import type { WebhookNotifier } from '../ports/webhook-notifier.ts';

export const sqsWebhookNotifier = (queueUrl: string, client: SQSClient = sqs()): WebhookNotifier => ({
  async notify(message) {
    await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(message) }));
  },
});
