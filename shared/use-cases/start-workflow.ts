import { THROTTLED_ERRORS, type WorkflowClient } from '../ports/workflow-client.ts';
import type { Clock } from '../domain/clock.ts';
import type { Prediction } from '../domain/prediction.ts';
import type { ModelCatalog } from '../catalog/model-catalog.ts';
import type { PredictionStore } from '../ports/prediction-store.ts';
import { applyEvent } from './apply-event.ts';

export interface StartDeps {
  readonly store: PredictionStore;
  /** The models: the policies the predictions move on by. */
  readonly catalog: ModelCatalog;
  readonly workflow: WorkflowClient;
  readonly stateMachineArnOf: (model: string) => string | undefined;
  readonly clock: Clock;
  readonly sleep: (ms: number) => Promise<void>;
}

/** Pauses before the retries of a throttled StartExecution: brief, since a create waits on it. */
const RETRY_PAUSES_MS = [50, 200, 500];

export type StartOutcome =
  /** Its execution runs: started now, or by an earlier start. */
  | { readonly kind: 'running' }
  /** StartExecution refused for now: the sweeper starts it later. */
  | { readonly kind: 'deferred'; readonly reason: string }
  /** An execution of its name exists but no longer runs: nothing will ever run it. */
  | { readonly kind: 'ended'; readonly executionStatus: string };

/**
 * Starts a prediction's execution (named after it, so a repeated start finds the first one).
 * Throttling is retried briefly; a start that still fails never fails the create nor strands it
 * (architecture: Scale ceilings). Writes nothing: what the start means is its caller's.
 */
export const startWorkflow = async (deps: StartDeps, prediction: Prediction): Promise<StartOutcome> => {
  const arn = deps.stateMachineArnOf(prediction.model);
  if (arn === undefined) return { kind: 'deferred', reason: `no workflow for ${prediction.model}` };
  let outcome: 'started' | 'exists' | undefined;
  let reason = '';
  for (let attempt = 0; outcome === undefined && attempt <= RETRY_PAUSES_MS.length; attempt++) {
    try {
      outcome = await deps.workflow.start(arn, { predictionId: prediction.id });
    } catch (error) {
      reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      const pause = RETRY_PAUSES_MS[attempt];
      if (!(error instanceof Error && THROTTLED_ERRORS.has(error.name)) || pause === undefined) break;
      await deps.sleep(pause);
    }
  }
  if (outcome === undefined) return { kind: 'deferred', reason };
  if (outcome === 'exists') {
    const status = await deps.workflow.status(arn, prediction.id);
    if (status !== 'RUNNING') return { kind: 'ended', executionStatus: status };
  }
  return { kind: 'running' };
};

/**
 * The create's start: a prediction whose execution runs stays `starting` and is written no more
 * until a worker claims it (its queue time counts from its creation); one whose start failed is
 * put off (`pending`) for the sweeper to start within START_GRACE_MS. If even that write fails,
 * the sweeper finds it at its queue limit, with no execution, and starts it then.
 */
export const startCreated = async (deps: StartDeps, prediction: Prediction): Promise<StartOutcome> => {
  const start = await startWorkflow(deps, prediction);
  if (start.kind !== 'running') {
    // Never fails the create: unwritten, it is found at its queue limit all the same.
    await applyEvent(deps, prediction.id, { type: 'deferred', atMs: deps.clock.now() }).catch(() => undefined);
  }
  return start;
};

/**
 * The sweeper's start of a prediction whose create did not start it; once it runs, it is queued
 * from now. A `pending` one (its start was put off) is started, then marked, so that a start
 * refused again, as the sweeper retries it, writes nothing. A `starting` one (its create died
 * before the start) is marked first: a worker that took its job before the mark would count its
 * queue time from its creation, a queue limit ago; a start that fails then puts it off. 'moved'
 * when it moved on meanwhile (ended, or claimed): there was nothing to start.
 */
export const startLate = async (deps: StartDeps, prediction: Prediction): Promise<StartOutcome | 'moved'> => {
  const markQueued = () => applyEvent(deps, prediction.id, { type: 'queued', atMs: deps.clock.now() });
  if (prediction.status !== 'starting') {
    const start = await startWorkflow(deps, prediction);
    // A worker that already claimed it has moved it on: then there is nothing to mark.
    if (start.kind === 'running') await markQueued();
    return start;
  }
  const queued = await markQueued();
  if (!queued.ok) return 'moved';
  const start = await startWorkflow(deps, queued.value.after);
  if (start.kind !== 'running') await applyEvent(deps, prediction.id, { type: 'deferred', atMs: deps.clock.now() });
  return start;
};
