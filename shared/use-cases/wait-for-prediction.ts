import type { PredictionStore } from '../ports/prediction-store.ts';
import type { Clock } from '../domain/clock.ts';
import { isTerminal, type Prediction } from '../domain/prediction.ts';

export interface WaitDeps {
  readonly store: PredictionStore;
  readonly clock: Clock;
  /** Resolves after `ms`, or at once when `signal` aborts. */
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

const FIRST_POLL_MS = 25;
const MAX_POLL_MS = 250;

/**
 * Polls with consistent reads until the prediction is terminal, the deadline passes or the caller
 * has gone (`callerGone`), then returns it as it stands: the prediction goes on either way. Polls
 * start fast (most syncs are short) and back off to 250 ms.
 */
export const waitForPrediction = async (
  deps: WaitDeps,
  initial: Prediction,
  timeoutMs: number,
  callerGone?: AbortSignal,
): Promise<Prediction> => {
  const deadline = deps.clock.now() + timeoutMs;
  let current = initial;
  let pause = FIRST_POLL_MS;
  while (!isTerminal(current) && !callerGone?.aborted) {
    const left = deadline - deps.clock.now();
    if (left <= 0) break;
    await deps.sleep(Math.min(pause, left), callerGone);
    if (callerGone?.aborted) break;
    pause = Math.min(pause * 2, MAX_POLL_MS);
    current = (await deps.store.get(current.id)) ?? current;
  }
  return current;
};
