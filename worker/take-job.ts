import type { Clock } from '../shared/domain/clock.ts';
import { ENDINGS } from '../shared/domain/endings.ts';
import type { IdGenerator, PredictionId } from '../shared/domain/ids.ts';
import { parseTimestamp } from '../shared/domain/clock.ts';
import { isTerminal, type PhaseLimits, type Prediction } from '../shared/domain/prediction.ts';
import type { PredictionStore } from '../shared/ports/prediction-store.ts';
import { applyEvent } from '../shared/use-cases/apply-event.ts';
import { completeOverdueEffects, endUnlessEnded, type EffectDeps } from '../shared/use-cases/end-prediction.ts';

export interface TakeDeps {
  readonly store: PredictionStore;
  readonly clock: Clock;
  /** New claim ids. */
  readonly ids: IdGenerator;
  readonly limits: PhaseLimits;
  /** For the predictions this worker ends without running them (the task token ends the execution). */
  readonly effects: EffectDeps;
  readonly log: (message: string, fields?: Record<string, unknown>) => void;
  /** Counts a lost worker (a metric the operators' alarm watches). */
  readonly countLost: () => void;
}

export type Processing = Extract<Prediction, { status: 'processing' }>;

export type Taken =
  /** Claimed by this worker: run it. */
  | { readonly kind: 'run'; readonly prediction: Processing }
  /** Nothing to run (ended, gone, or ended here): the message is done with. */
  | { readonly kind: 'done'; readonly reason: string }
  /** Claimed so recently that its worker may be alive (SQS delivered the message twice): look again then. */
  | { readonly kind: 'later'; readonly afterMs: number };

const MAX_CONFLICTS = 5;

/**
 * What a worker does with a job message it received. The message only points at the prediction;
 * the prediction says what to do. Waiting in the queue is never a failure until the model's
 * queue limit; a message that comes back while its prediction is `processing` means the worker
 * that claimed it stopped renewing its lease: the claim is lost, the prediction goes back to
 * `queued`, and it is claimed again — unless it has used its attempts.
 */
export const takeJob = async (deps: TakeDeps, id: PredictionId): Promise<Taken> => {
  for (let conflict = 0; conflict < MAX_CONFLICTS; conflict++) {
    const prediction = await deps.store.get(id);
    if (!prediction) return { kind: 'done', reason: 'the prediction is gone' };
    const nowMs = deps.clock.now();
    if (isTerminal(prediction)) {
      // Ended by someone else (a cancel, the sweeper), who settles what it owes; overdue, it falls to us.
      await completeOverdueEffects(deps.effects, prediction, nowMs);
      return { kind: 'done', reason: `the prediction has ${prediction.status}` };
    }
    if (prediction.status === 'processing') {
      const age = nowMs - parseTimestamp(prediction.startedAt);
      const halfLease = (deps.limits.leaseSeconds * 1000) / 2;
      if (age < halfLease) return { kind: 'later', afterMs: halfLease - age };
      const lost = await applyEvent(deps.store, id, { type: 'lost', atMs: nowMs, claim: prediction.claim });
      if (lost.ok) {
        deps.countLost();
        deps.log('the worker running this prediction was lost; it goes back to the queue', {
          predictionId: id,
          attempts: prediction.attempts,
        });
      }
      continue;
    }
    const end = async (error: string): Promise<Taken> => {
      await endUnlessEnded(deps.effects, id, { type: 'failed', atMs: nowMs, error, runtimeMs: null, by: 'worker' });
      return { kind: 'done', reason: error };
    };
    if (
      prediction.status === 'queued' &&
      nowMs - parseTimestamp(prediction.queuedAt) > deps.limits.queueSeconds * 1000
    ) {
      return end(ENDINGS.noCapacity(deps.limits.queueSeconds));
    }
    if (prediction.deadlineAt !== null && nowMs >= parseTimestamp(prediction.deadlineAt)) {
      await endUnlessEnded(deps.effects, id, {
        type: 'canceled',
        atMs: nowMs,
        by: 'worker',
        error: ENDINGS.deadline(prediction.deadlineAt),
      });
      return { kind: 'done', reason: 'its deadline passed' };
    }
    if (prediction.attempts >= deps.limits.maxAttempts) return end(ENDINGS.workerLost(prediction.attempts));
    const claimed = await applyEvent(deps.store, id, { type: 'claimed', atMs: nowMs, claim: deps.ids() });
    if (claimed.ok && claimed.value.after.status === 'processing')
      return { kind: 'run', prediction: claimed.value.after };
  }
  throw new Error(`prediction ${id}: gave up after ${MAX_CONFLICTS} concurrent updates`);
};
