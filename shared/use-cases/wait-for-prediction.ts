import type { EndingInbox } from '../ports/ending-notices.ts';
import type { PredictionStore } from '../ports/prediction-store.ts';
import type { Clock } from '../domain/clock.ts';
import { isTerminal, type Prediction } from '../domain/prediction.ts';

export interface WaitDeps {
  readonly store: PredictionStore;
  readonly clock: Clock;
  /** This process's inbox, whose address the prediction recorded as its waiter. */
  readonly endingInbox: EndingInbox;
}

/**
 * How often a wait reads the prediction with no notice: a notice lost (its inbox removed, a send
 * that failed) costs the wait this much, never its answer.
 */
export const SAFETY_READ_MS = 1000;

/**
 * Waits for the notice that the prediction ended (architecture: Synchronous waits), which carries
 * it as it ended (or, when it was too large to carry, is followed by a consistent read); reads it
 * also every SAFETY_READ_MS and once at the deadline. Returns it as it stands when it is terminal,
 * the deadline passes or the caller has gone (`callerGone`): the prediction goes on either way.
 */
export const waitForPrediction = async (
  deps: WaitDeps,
  initial: Prediction,
  timeoutMs: number,
  callerGone?: AbortSignal,
): Promise<Prediction> => {
  const deadline = deps.clock.now() + timeoutMs;
  let current = initial;
  while (!isTerminal(current) && !callerGone?.aborted) {
    const nowMs = deps.clock.now();
    if (nowMs >= deadline) break;
    const told = await deps.endingInbox.waitFor(current.id, Math.min(nowMs + SAFETY_READ_MS, deadline), callerGone);
    if (told !== null) return told;
    if (callerGone?.aborted) break;
    current = (await deps.store.get(current.id)) ?? current;
  }
  return current;
};

/**
 * This process's inbox address, for a create that will wait: null when the inbox cannot be made
 * now (`report` hears why), for the wait does without notices, at its safety reads' pace.
 */
export const waiterAddress = async (inbox: EndingInbox, report: (error: unknown) => void): Promise<string | null> => {
  try {
    return await inbox.address();
  } catch (error) {
    report(error);
    return null;
  }
};
