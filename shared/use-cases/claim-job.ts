import { claimTerms } from '../domain/claim.ts';
import type { Clock } from '../domain/clock.ts';
import type { IdGenerator, PredictionId } from '../domain/ids.ts';
import { claimLostInMs, endingOwed } from '../domain/phases.ts';
import { isTerminal, type PhaseLimits, type Prediction } from '../domain/prediction.ts';
import { owedEndingEvent } from '../domain/transition.ts';
import type { ModelCatalog } from '../catalog/model-catalog.ts';
import type { PredictionStore } from '../ports/prediction-store.ts';
import { applyEvent } from './apply-event.ts';
import { completeOverdueEffects, endUnlessEnded, type EffectDeps } from './end-prediction.ts';

export interface ClaimDeps {
  readonly store: PredictionStore;
  /** The policies its predictions move on by. */
  readonly catalog: ModelCatalog;
  readonly clock: Clock;
  /** New claim ids. */
  readonly ids: IdGenerator;
  readonly limits: PhaseLimits;
  /** For the predictions ended here without being run (the task token ends the execution). */
  readonly effects: EffectDeps;
  readonly log: (message: string, fields?: Record<string, unknown>) => void;
  /** Counts a lost worker (a metric the operators' alarm watches). */
  readonly countLost: () => void;
}

export type Processing = Extract<Prediction, { status: 'processing' }>;

export type Claimed =
  /** Claimed by this worker: run it. */
  | { readonly kind: 'run'; readonly prediction: Processing }
  /** Nothing to run (ended, gone, or ended here): the message is done with. */
  | { readonly kind: 'done'; readonly reason: string }
  /** Claimed so recently that its worker may be alive (the queue delivered the message twice): look again then. */
  | { readonly kind: 'later'; readonly afterMs: number };

const MAX_CONFLICTS = 5;

/**
 * What a worker does with a job message it received. The message only points at the prediction;
 * the prediction says what to do. Most jobs find their prediction waiting for a worker: it is
 * claimed in one conditional write (the domain's claim terms), without being read first. Any other
 * is read, and decided on as it stands. A message that comes back while its prediction is `processing`
 * means the worker that claimed it stopped renewing its lease: the claim is lost and the
 * prediction goes back to `queued`. A prediction owed an ending (its deadline, the queue limit,
 * its attempts used: `endingOwed`) ends here; any other is claimed.
 */
export const claimJob = async (deps: ClaimDeps, id: PredictionId): Promise<Claimed> => {
  // One claim id for this job: a write that failed claimed nothing with it.
  const claim = deps.ids();
  const waiting = await deps.store.claimWaiting(id, claimTerms(deps.limits, deps.clock.now(), claim));
  if (waiting) return { kind: 'run', prediction: waiting };
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
      const wait = claimLostInMs(prediction.startedAt, deps.limits, nowMs);
      if (wait > 0) return { kind: 'later', afterMs: wait };
      const lost = await applyEvent(deps, id, { type: 'lost', atMs: nowMs, claim: prediction.claim }, prediction);
      if (lost.ok) {
        deps.countLost();
        deps.log('the worker running this prediction was lost; it goes back to the queue', {
          predictionId: id,
          attempts: prediction.attempts,
        });
      }
      continue;
    }
    const owed = endingOwed(prediction, deps.limits, nowMs);
    if (owed !== null) {
      await endUnlessEnded(deps.effects, id, owedEndingEvent(owed, nowMs, 'worker'));
      return { kind: 'done', reason: owed.error };
    }
    const claimed = await applyEvent(deps, id, { type: 'claimed', atMs: nowMs, claim }, prediction);
    if (claimed.ok && claimed.value.after.status === 'processing')
      return { kind: 'run', prediction: claimed.value.after };
  }
  throw new Error(`prediction ${id}: gave up after ${MAX_CONFLICTS} concurrent updates`);
};
