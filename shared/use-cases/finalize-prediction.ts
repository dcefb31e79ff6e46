import type { PredictionStore } from '../adapters/prediction-store.ts';
import type { Clock } from '../domain/clock.ts';
import type { PredictionId } from '../domain/ids.ts';
import type { PredictionEvent } from '../domain/prediction.ts';
import { MODEL_FAILED, WORKER_FAILED, runFailureCause, type FinalizeInput, type FinalizeOutput } from '../workflow/messages.ts';
import { applyEvent } from './apply-event.ts';

/** Turns a caught workflow error into the message the prediction's owner reads. */
export const describeFailure = (error: { Error: string; Cause?: string | null | undefined }): { message: string; runtimeMs: number | null } => {
  if (error.Error === MODEL_FAILED || error.Error === WORKER_FAILED) {
    try {
      return runFailureCause.parse(JSON.parse(error.Cause ?? ''));
    } catch {
      return { message: error.Cause ?? 'the model failed', runtimeMs: null };
    }
  }
  if (error.Error === 'States.HeartbeatTimeout') {
    return { message: 'the worker running this prediction stopped responding (heartbeat timeout); the run was lost', runtimeMs: null };
  }
  if (error.Error === 'States.Timeout') {
    return { message: 'the prediction did not finish within the time allowed for this model', runtimeMs: null };
  }
  return { message: `the service failed while running this prediction (${error.Error})`, runtimeMs: null };
};

/**
 * The workflow's Finalize step. Idempotent: a prediction that is already terminal (canceled by
 * its owner, or finalized by an earlier attempt) is left as it is.
 */
export const finalizePrediction = async (
  deps: { readonly store: PredictionStore; readonly clock: Clock },
  input: FinalizeInput,
): Promise<FinalizeOutput> => {
  const atMs = deps.clock.now();
  let event: PredictionEvent;
  if (input.result) {
    event = { type: 'succeeded', atMs, output: input.result.output, runtimeMs: input.result.runtimeMs };
  } else {
    const failure = describeFailure(input.error ?? { Error: 'Prognoz.NoResult', Cause: null });
    event = { type: 'failed', atMs, error: failure.message, runtimeMs: failure.runtimeMs };
  }
  const id = input.predictionId as PredictionId;
  const applied = await applyEvent(deps.store, id, event);
  // Only the step that ended the prediction notifies; a repeat or a lost race does not.
  if (applied.ok) return { status: applied.value.after.status, notify: applied.value.changed && applied.value.after.webhook !== null };
  if (applied.error.code === 'prediction_finished') {
    const current = await deps.store.get(id);
    if (current) return { status: current.status, notify: false };
  }
  throw applied.error;
};
