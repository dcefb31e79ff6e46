import type { PostOutcome, PostRequest, WebhookPoster } from '../../../shared/ports/webhook-poster.ts';
import { answer } from './answer.ts';

export interface PostedWebhook extends PostRequest {
  readonly url: string;
}

/**
 * A webhook receiver in memory: every request is kept, and answered by the outcomes given to
 * `answerWith` in turn (the last one from then on); 204 when none was given.
 */
export const inMemoryWebhookPoster = (): {
  readonly post: WebhookPoster;
  readonly posted: PostedWebhook[];
  answerWith(...outcomes: PostOutcome[]): void;
} => {
  const posted: PostedWebhook[] = [];
  let outcomes: PostOutcome[] = [{ status: 204 }];
  return {
    posted,
    post: (url, request) =>
      answer(() => {
        posted.push({ url, ...request });
        return (outcomes.length > 1 ? outcomes.shift() : outcomes[0]) ?? { status: 204 };
      }),
    answerWith: (...given) => {
      if (given.length === 0) throw new Error('answerWith needs an outcome');
      outcomes = given;
    },
  };
};
