import type { PredictionView } from '../shared/api/prediction-view.ts';
import { isTerminalStatus } from '../shared/domain/prediction.ts';
import { startReceiver } from '../test/support/receiver.ts';

export interface Completions {
  /** Where the service is to send completion webhooks. */
  readonly url: string;
  /** The prediction as its completion webhook carried it. */
  ended(id: string, timeoutMs: number): Promise<PredictionView>;
  close(): Promise<void>;
}

/**
 * A webhook receiver on loopback that hands each prediction's completion to whoever waits for it:
 * the benchmark learns of an end without polling the API while the model runs.
 */
export const receiveCompletions = async (): Promise<Completions> => {
  const arrived = new Map<string, PredictionView>();
  const waiting = new Map<string, (view: PredictionView) => void>();
  const receiver = await startReceiver((delivery) => {
    const view = JSON.parse(delivery.body) as PredictionView;
    if (isTerminalStatus(view.status)) {
      arrived.set(view.id, view);
      waiting.get(view.id)?.(view);
    }
    return 204;
  });
  return {
    url: `${receiver.url}/completed`,
    ended: (id, timeoutMs) =>
      new Promise<PredictionView>((resolve, reject) => {
        const already = arrived.get(id);
        if (already) return resolve(already);
        const timer = setTimeout(() => {
          waiting.delete(id);
          reject(new Error(`no completion webhook for ${id} within ${timeoutMs} ms`));
        }, timeoutMs);
        waiting.set(id, (view) => {
          clearTimeout(timer);
          waiting.delete(id);
          resolve(view);
        });
      }),
    close: () => receiver.close(),
  };
};
