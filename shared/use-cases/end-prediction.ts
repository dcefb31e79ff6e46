import type { EndingTeller } from '../ports/ending-notices.ts';
import type { WebhookNotifier } from '../ports/webhook-notifier.ts';
import type { WorkflowClient } from '../ports/workflow-client.ts';
import type { PrognozError } from '../domain/errors.ts';
import type { PredictionId } from '../domain/ids.ts';
import {
  isTerminal,
  withEffectsDone,
  type Prediction,
  type SideEffect,
  type TerminalPrediction,
} from '../domain/prediction.ts';
import { type PredictionEvent } from '../domain/transition.ts';
import { err, ok, type Result } from '../domain/result.ts';
import type { ModelCatalog } from '../catalog/model-catalog.ts';
import type { PredictionStore } from '../ports/prediction-store.ts';
import { applyEvent } from './apply-event.ts';

/** What ending a prediction's execution needs to know of it. */
export type EndingExecution = Pick<TerminalPrediction, 'id' | 'model' | 'status'>;

export interface EffectDeps {
  readonly store: PredictionStore;
  /** The policies the predictions move on by. */
  readonly catalog: ModelCatalog;
  readonly notifier: WebhookNotifier;
  /** Tells a waiting request that its prediction ended. */
  readonly endingTeller: EndingTeller;
  /**
   * Ends the prediction's workflow execution: StopExecution for the API and the sweeper, the
   * task token for the worker that holds it.
   */
  readonly stopExecution: (prediction: EndingExecution) => Promise<void>;
}

/** Effects that end executions with StopExecution: for the API and the sweeper, which hold no task token. */
export const stoppingExecutions = (
  deps: Omit<EffectDeps, 'stopExecution'> & {
    readonly workflow: WorkflowClient;
    readonly stateMachineArnOf: (model: string) => string | undefined;
  },
  cause: string,
): EffectDeps => ({
  store: deps.store,
  catalog: deps.catalog,
  notifier: deps.notifier,
  endingTeller: deps.endingTeller,
  stopExecution: async (prediction) => {
    const arn = deps.stateMachineArnOf(prediction.model);
    if (arn !== undefined) await deps.workflow.stop(arn, prediction.id, cause);
  },
});

/** The end is written but some of what it owes failed: that stays owed, for whoever settles it next. */
export class EffectsOwed extends AggregateError {
  constructor(predictionId: PredictionId, failures: readonly unknown[]) {
    super(failures, `prediction ${predictionId}: side effects still owed`);
    this.name = 'EffectsOwed';
  }
}

/**
 * Does what an ended prediction still owes — its execution ended, its webhook queued — and
 * records what was done. Whoever sees an effect pending does it (the ender at once, a retried
 * cancel or Finalize, the sweeper after EFFECTS_GRACE_MS), so it happens at least once; the
 * webhook's stable id lets receivers drop the rare repeat. What fails stays owed.
 */
export const completeEffects = async (
  deps: EffectDeps,
  prediction: TerminalPrediction,
): Promise<TerminalPrediction> => {
  if (prediction.effects.length === 0) return prediction;
  const done: SideEffect[] = [];
  const failures: unknown[] = [];
  for (const effect of prediction.effects) {
    try {
      if (effect === 'stop') await deps.stopExecution(prediction);
      else await deps.notifier.notify({ predictionId: prediction.id, status: prediction.status });
      done.push(effect);
    } catch (error) {
      failures.push(error);
    }
  }
  const settled = withEffectsDone(prediction, done);
  if (done.length > 0) await deps.store.effectsDone(settled);
  if (failures.length > 0) throw new EffectsOwed(prediction.id, failures);
  return settled;
};

type TerminalEvent = Extract<PredictionEvent, { type: 'succeeded' | 'failed' | 'canceled' }>;

/**
 * Settles what an ended prediction owes only once its ender has had its grace to do so itself:
 * for those who come across it (a worker given its old job, news of its execution's end), so
 * that they do not repeat its webhook while its ender is still sending it.
 */
export const completeOverdueEffects = async (
  deps: EffectDeps,
  prediction: TerminalPrediction,
  nowMs: number,
): Promise<TerminalPrediction> =>
  prediction.sweepAtMs !== null && prediction.sweepAtMs <= nowMs ? completeEffects(deps, prediction) : prediction;

/**
 * Ends a prediction for those who end what nothing else will (the worker with a job it will not
 * run, the sweeper): one that something else ended meanwhile needs nothing more, since what that
 * owes has been settled all the same.
 */
export const endUnlessEnded = async (deps: EffectDeps, id: PredictionId, event: TerminalEvent): Promise<void> => {
  const ended = await endPrediction(deps, id, event);
  if (!ended.ok && ended.error.code !== 'prediction_finished') throw ended.error;
};

/**
 * Ends a prediction with one terminal event — status, cost and released hold in one write — then
 * tells the request waiting for it, if one is (architecture: Synchronous waits), while it settles
 * what the end owes. The notice is not owed: it is sent once, and a lost one costs the waiter
 * latency, never its answer. A prediction that had already ended is returned as it stands after
 * its owed effects are settled, so a retried end finishes what a failed one started; for a
 * cancel that is the success case, for the others the caller sees `prediction_finished`.
 * An ender that knows how the prediction is stored (a worker whose run wrote nothing on it since
 * its claim) passes it as `known`, and the end is written without reading it first (applyEvent).
 */
export const endPrediction = async (
  deps: EffectDeps,
  id: PredictionId,
  event: TerminalEvent,
  known?: Prediction,
): Promise<Result<TerminalPrediction, PrognozError>> => {
  const applied = await applyEvent(deps, id, event, known);
  if (!applied.ok) {
    if (applied.error.code === 'prediction_finished') {
      const current = await deps.store.get(id);
      if (current && isTerminal(current)) await completeEffects(deps, current);
    }
    return err(applied.error);
  }
  const ended = applied.value.after;
  if (!isTerminal(ended)) throw new Error(`prediction ${id}: a ${event.type} event left it ${ended.status}`);
  const told = ended.waiter === null ? null : deps.endingTeller.tell(ended.waiter, ended);
  try {
    return ok(await completeEffects(deps, ended));
  } finally {
    await told;
  }
};
