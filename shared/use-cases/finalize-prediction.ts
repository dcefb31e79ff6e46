import type { Clock } from '../domain/clock.ts';
import { isTerminal, type Prediction } from '../domain/prediction.ts';
import type { FinalizeInput, FinalizeOutput } from '../workflow/messages.ts';
import { completeEffects, endPrediction, type EffectDeps } from './end-prediction.ts';

/** Turns the error Dispatch was caught with into the message the prediction's owner reads. */
export const describeFailure = (
  error: { Error: string; Cause?: string | null | undefined } | undefined,
  prediction: Prediction,
): string => {
  const name = error?.Error ?? 'Prognoz.NoResult';
  if (name === 'States.Timeout') {
    return prediction.status === 'processing'
      ? 'the prediction did not finish within the time allowed for this model'
      : 'no worker took this prediction up within the time allowed for this model';
  }
  if (name.startsWith('SQS.'))
    return `the service could not queue this prediction for its model (${name}); please retry`;
  return `the service failed while running this prediction (${name})`;
};

/**
 * The workflow's Finalize step, reached only when Dispatch failed (workers end the predictions
 * they run themselves). Idempotent: a prediction that has already ended is left as it is, but
 * what it still owes (its webhook) is done, so a Finalize retried after it committed still
 * notifies. Its own execution is ending: that side effect needs nothing more.
 */
export const finalizePrediction = async (
  deps: Omit<EffectDeps, 'stopExecution'> & { readonly clock: Clock },
  input: FinalizeInput,
): Promise<FinalizeOutput> => {
  const id = input.predictionId;
  const effects: EffectDeps = { ...deps, stopExecution: () => Promise.resolve() };
  const current = await deps.store.get(id);
  if (!current) throw new Error(`prediction ${id} does not exist`);
  if (isTerminal(current)) return { status: (await completeEffects(effects, current)).status };
  const ended = await endPrediction(effects, id, {
    type: 'failed',
    atMs: deps.clock.now(),
    error: describeFailure(input.error, current),
    runtimeMs: null,
    by: 'workflow',
  });
  if (ended.ok) return { status: ended.value.status };
  // A worker or a cancel ended it meanwhile: endPrediction has settled what that owes.
  if (ended.error.code === 'prediction_finished') return { status: (await deps.store.get(id))?.status ?? 'failed' };
  throw ended.error;
};
