import type { PredictionStore } from '../ports/prediction-store.ts';
import type { Clock } from '../domain/clock.ts';
import { isTerminal, type Prediction } from '../domain/prediction.ts';

export interface WaitDeps {
  readonly store: PredictionStore;
  readonly clock: Clock;
  readonly sleep: (ms: number) => Promise<void>;
}

const FIRST_POLL_MS = 25;
const MAX_POLL_MS = 250;

/**
 * Polls with consistent reads until the prediction is terminal or the deadline passes, then
 * returns it as it stands. Polls start fast (most syncs are short) and back off to 250 ms.
 */
export const waitForPrediction = async (
  deps: WaitDeps,
  initial: Prediction,
  timeoutMs: number,
): Promise<Prediction> => {
  const deadline = deps.clock.now() + timeoutMs;
  let current = initial;
  let pause = FIRST_POLL_MS;
  while (!isTerminal(current)) {
    const left = deadline - deps.clock.now();
    if (left <= 0) break;
    await deps.sleep(Math.min(pause, left));
    pause = Math.min(pause * 2, MAX_POLL_MS);
    current = (await deps.store.get(current.id)) ?? current;
  }
  return current;
};
