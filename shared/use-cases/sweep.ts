import type { PredictionId } from '../domain/ids.ts';
import { ENDINGS } from '../domain/endings.ts';
import { endingOwed, sweepDeadline, type OwedEnding } from '../domain/phases.ts';
import { isTerminal, type Prediction } from '../domain/prediction.ts';
import type { ExecutionStatus } from '../ports/workflow-client.ts';
import { owedEndingEvent } from '../domain/transition.ts';
import { phaseLimitsOf } from '../catalog/definition.ts';
import type { Clock } from '../domain/clock.ts';
import type { EndingInboxes, EndingTeller } from '../ports/ending-notices.ts';
import type { WebhookNotifier } from '../ports/webhook-notifier.ts';
import { completeEffects, completeOverdueEffects, endUnlessEnded, stoppingExecutions } from './end-prediction.ts';
import { startLate, type StartDeps } from './start-workflow.ts';

export interface SweepDeps extends StartDeps {
  readonly notifier: WebhookNotifier;
  readonly endingTeller: EndingTeller;
}

export type SweepAction = 'gone' | 'not_due' | 'settled' | 'started' | 'deferred' | 'ended';

/** Gives a prediction the ending it is owed, stopping its execution with the reason. */
const end = async (deps: SweepDeps, id: PredictionId, owed: OwedEnding): Promise<SweepAction> => {
  await endUnlessEnded(stoppingExecutions(deps, owed.error), id, owedEndingEvent(owed, deps.clock.now(), 'sweeper'));
  return 'ended';
};

const fail = (deps: SweepDeps, id: PredictionId, error: string): Promise<SweepAction> =>
  end(deps, id, { type: 'failed', error });

/**
 * Looks at one prediction whose sweep deadline passed and moves it on: what an ended one owes is
 * done; one owed an ending (`endingOwed`: its deadline, a start that never came, the queue limit,
 * a lost run no one took up) gets it; one not yet started is started — one whose start was put
 * off, or one at its queue limit whose create died before it started its execution.
 */
export const sweepOne = async (deps: SweepDeps, id: PredictionId): Promise<SweepAction> => {
  const prediction = await deps.store.get(id);
  if (!prediction) return 'gone';
  const nowMs = deps.clock.now();
  if (prediction.sweepAtMs === null || prediction.sweepAtMs > nowMs) return 'not_due';
  if (isTerminal(prediction)) {
    await completeEffects(stoppingExecutions(deps, 'the prediction has ended'), prediction);
    return 'settled';
  }
  const model = deps.catalog.catalogModel(prediction.model);
  if (model === undefined) return fail(deps, id, ENDINGS.withdrawn(prediction.model));
  const limits = phaseLimitsOf(model);
  // Its phase may be due later than the time it was found at: a claim keeps its waiting phase's
  // earlier time, and a model's limits may have been raised since. It is looked at again then.
  const dueAtMs = sweepDeadline(prediction, limits);
  if (dueAtMs !== null && dueAtMs > nowMs) {
    await deps.store.lookAgainAt(prediction, dueAtMs);
    return 'not_due';
  }
  const owed = endingOwed(prediction, limits, nowMs);
  if (prediction.status === 'pending' && owed === null) return startNow(deps, prediction);
  if (prediction.status === 'starting' && owed?.type !== 'canceled') {
    // At its queue limit. Its create started it, unless that create died first: then it starts now.
    const execution = await executionOf(deps, prediction);
    if (execution === 'MISSING') return startNow(deps, prediction);
    if (execution !== null && execution !== 'RUNNING') return fail(deps, id, ENDINGS.workflowEnded(execution));
  }
  return owed === null ? 'not_due' : end(deps, id, owed);
};

const executionOf = async (deps: SweepDeps, prediction: Prediction): Promise<ExecutionStatus | null> => {
  const arn = deps.stateMachineArnOf(prediction.model);
  return arn === undefined ? null : deps.workflow.status(arn, prediction.id);
};

const startNow = async (deps: SweepDeps, prediction: Prediction): Promise<SweepAction> => {
  const start = await startLate(deps, prediction);
  if (start === 'moved') return 'not_due';
  if (start.kind === 'ended') return fail(deps, prediction.id, ENDINGS.workflowEnded(start.executionStatus));
  return start.kind === 'running' ? 'started' : 'deferred';
};

/** Data removals a sweep runs at once: each is one conditional write. */
const REMOVALS_AT_ONCE = 25;

/**
 * Removes the input, output and logs of ended predictions whose retention period is over (up to
 * `limit`, REMOVALS_AT_ONCE at a time): a separate pass, so that however many are due, no stuck
 * prediction waits behind them. Returns how many were removed.
 */
export const removeExpiredData = async (deps: Pick<SweepDeps, 'store' | 'clock'>, limit = 20_000): Promise<number> => {
  const ids = await deps.store.dataDue(deps.clock.now(), limit);
  let removed = 0;
  for (let start = 0; start < ids.length; start += REMOVALS_AT_ONCE) {
    const done = await Promise.all(
      ids.slice(start, start + REMOVALS_AT_ONCE).map((id) => deps.store.removeData(id, deps.clock.now())),
    );
    removed += done.filter(Boolean).length;
  }
  return removed;
};

export interface SweepReport {
  readonly looked: number;
  readonly actions: Partial<Record<SweepAction | 'error', number>>;
}

/** One run of the sweeper: every due prediction (up to `limit`), each on its own. */
export const sweep = async (
  deps: SweepDeps,
  limit = 500,
  onError: (id: string, error: unknown) => void = () => undefined,
): Promise<SweepReport> => {
  const ids = await deps.store.due(deps.clock.now(), limit);
  const actions: Partial<Record<SweepAction | 'error', number>> = {};
  for (const id of ids) {
    let action: SweepAction | 'error';
    try {
      action = await sweepOne(deps, id);
    } catch (error) {
      onError(id, error);
      action = 'error';
    }
    actions[action] = (actions[action] ?? 0) + 1;
  }
  return { looked: ids.length, actions };
};

/**
 * Ends a prediction nothing will move on any more, with `error`; one that has ended already has
 * what it owes settled once its ender's grace is over (usually its ender, say a cancel that
 * stopped its execution, is settling it right now).
 */
const endIfActive = async (deps: SweepDeps, id: PredictionId, error: string): Promise<SweepAction> => {
  const prediction = await deps.store.get(id);
  if (!prediction) return 'gone';
  if (isTerminal(prediction)) {
    await completeOverdueEffects(stoppingExecutions(deps, 'the prediction has ended'), prediction, deps.clock.now());
    return 'settled';
  }
  return fail(deps, id, error);
};

/**
 * An execution ended without success (FAILED, TIMED_OUT, ABORTED — as EventBridge reports it):
 * a prediction still active behind it would wait for nothing, so it ends now.
 */
export const reconcileExecution = (deps: SweepDeps, id: PredictionId, executionStatus: string): Promise<SweepAction> =>
  endIfActive(deps, id, ENDINGS.workflowEnded(executionStatus));

/** A job the model queue dead-lettered after its receives ran out: no worker will run it. */
export const endDeadJob = (deps: SweepDeps, id: PredictionId, receives: number): Promise<SweepAction> =>
  endIfActive(deps, id, ENDINGS.deadJob(receives));

/**
 * How long a waiting process's inbox is kept: its process, a Lambda execution environment or the
 * local API, leaves it behind when it ends. One that lives longer makes itself a new one.
 */
export const INBOX_KEPT_MS = 12 * 3600_000;

/** Removes the inboxes made more than INBOX_KEPT_MS ago; returns how many. */
export const removeOldInboxes = (deps: {
  readonly endingInboxes: EndingInboxes;
  readonly clock: Clock;
}): Promise<number> => deps.endingInboxes.removeMadeBefore(deps.clock.now() - INBOX_KEPT_MS);
