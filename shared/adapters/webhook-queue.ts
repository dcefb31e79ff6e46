import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { WebhookMessage } from '../workflow/messages.ts';
import { sqs } from './aws-clients.ts';

/** Puts a webhook event on the delivery queue (the workflow's Notify step does the same). */
export interface WebhookNotifier {
  notify(message: WebhookMessage): Promise<void>;
}

export const sqsWebhookNotifier = (queueUrl: string, client: SQSClient = sqs()): WebhookNotifier => ({
  async notify(message) {
    await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(message) }));
  },
});
