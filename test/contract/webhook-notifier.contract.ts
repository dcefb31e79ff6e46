import { describe, expect, it } from 'vitest';
import { newPredictionId } from '../../shared/domain/ids.ts';
import type { WebhookNotifier } from '../../shared/ports/webhook-notifier.ts';
import type { WebhookMessage } from '../../shared/workflow/messages.ts';

export interface WebhookNotifierHarness {
  readonly notifier: WebhookNotifier;
  /** Every message on the queue so far, as the sender receives them (taken off the queue). */
  readonly received: () => Promise<WebhookMessage[]>;
}

export type MakeWebhookNotifier = () => Promise<WebhookNotifierHarness>;

/** What every WebhookNotifier does, whatever the queue. */
export const describeWebhookNotifierContract = (name: string, make: MakeWebhookNotifier) =>
  describe(`${name}: the webhook notifier`, () => {
    it('queues each message as given', async () => {
      const { notifier, received } = await make();
      const ended: WebhookMessage = { predictionId: newPredictionId(), status: 'succeeded' };
      const logs: WebhookMessage = { predictionId: newPredictionId(), event: 'logs', atMs: 1_764_072_000_000 };
      await notifier.notify(ended);
      await notifier.notify(logs);
      const messages = await received();
      expect(messages).toHaveLength(2);
      expect(messages).toEqual(expect.arrayContaining([ended, logs]));
    });
  });
