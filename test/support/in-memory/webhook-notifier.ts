import type { WebhookNotifier } from '../../../shared/ports/webhook-notifier.ts';
import type { WebhookMessage } from '../../../shared/workflow/messages.ts';
import { answer } from './answer.ts';

/** The webhook queue in memory: what was queued, in order; `failing` makes the next sends throw. */
export const inMemoryWebhookNotifier = (): WebhookNotifier & {
  readonly queued: WebhookMessage[];
  /** Takes what was queued (oldest first), as the sender receives it. */
  readonly receive: () => Promise<WebhookMessage[]>;
  readonly failing: (error: Error | null) => void;
} => {
  const queued: WebhookMessage[] = [];
  let failure: Error | null = null;
  return {
    queued,
    notify: (message) =>
      answer(() => {
        if (failure) throw failure;
        queued.push(message);
      }),
    receive: () => answer(() => queued.splice(0)),
    failing: (error) => {
      failure = error;
    },
  };
};
