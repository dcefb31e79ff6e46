import { THROTTLED_ERRORS, type WorkflowClient } from '../ports/workflow-client.ts';
import type { Clock } from '../domain/clock.ts';
import type { Prediction } from '../domain/prediction.ts';
import type { PredictionStore } from '../ports/prediction-store.ts';
import { applyEvent } from './apply-event.ts';

export interface StartDeps {
  readonly store: PredictionStore;
  readonly workflow: WorkflowClient;
  readonly stateMachineArnOf: (model: string) => string | undefined;
  readonly clock: Clock;
  readonly sleep: (ms: number) => Promise<void>;
}

/** Pauses before the retries of a throttled StartExecution: brief, since a create waits on it. */
const RETRY_PAUSES_MS = [50, 200, 500];

export type StartOutcome =
  /** Its execution runs and it is marked queued (unless a worker claimed it first). */
  | { readonly kind: 'queued' }
  /** StartExecution refused for now: it stays `starting`, for the sweeper to start later. */
  | { readonly kind: 'deferred'; readonly reason: string }
  /** An execution of its name exists but no longer runs: nothing will ever run it. */
  | { readonly kind: 'ended'; readonly executionStatus: string };

/**
 * Starts a prediction's execution (named after it, so a repeated start finds the first one)
 * and marks it queued. Throttling is retried briefly; a start that still fails never fails the
 * create nor strands it: it is left `starting` for the sweeper (architecture: Scale ceilings).
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
  // A worker that already claimed it has moved it on: then there is nothing to mark.
  await applyEvent(deps.store, prediction.id, { type: 'queued', atMs: deps.clock.now() });
  return { kind: 'queued' };
};
