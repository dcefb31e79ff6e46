import type { WebhookMessage } from '../workflow/messages.ts';

/** Puts a webhook event on the delivery queue (the workflow's Notify step does the same). */
export interface WebhookNotifier {
  notify(message: WebhookMessage): Promise<void>;
}
