import { ENDINGS, OUTPUT_LIMITS } from '../../domain/endings.ts';
import type { StoredOutput } from '../../domain/prediction.ts';
import type { RunReport } from '../../domain/run-report.ts';
import type { PredictionEvent } from '../../domain/transition.ts';
import { checkOutput } from '../../catalog/cog-schema.ts';
import { ModelTimeout, type ModelResponse } from '../../ports/model-server.ts';
import { InputFetchFailed } from '../../ports/run-inputs.ts';
import type { Processing } from '../claim-job.ts';
import { EffectsOwed, endPrediction } from '../end-prediction.ts';
import { OutputFilesTooLarge, type RunFiles } from './output-files.ts';
import type { RunDeps, RunOutcome } from './run-deps.ts';

/** Pauses before retrying a write of the result that failed (the job is done; losing it would rerun it). */
const END_RETRY_PAUSES_MS = [500, 2000, 5000];

/** The run is done and losing its result would run it again: its writes are retried a few times. */
export const retrying = async <T>(
  deps: Pick<RunDeps, 'log' | 'sleep'>,
  what: string,
  predictionId: string,
  write: () => Promise<T>,
): Promise<T> => {
  for (let attempt = 0; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      const pause = END_RETRY_PAUSES_MS[attempt];
      // Files over the limit are a limit, not a fault: trying again would only wait to say so; an
      // end that is written and owes what failed is not written again.
      if (pause === undefined || error instanceof OutputFilesTooLarge || error instanceof EffectsOwed) throw error;
      deps.log(`${what} failed; retrying`, { predictionId, error: String(error) });
      await deps.sleep(pause);
    }
  }
};

type Ending =
  | { readonly type: 'succeeded'; readonly claim: string; readonly output: StoredOutput; readonly runtimeMs: number }
  | {
      readonly type: 'failed';
      readonly claim: string;
      readonly error: string;
      readonly runtimeMs: number | null;
      readonly by: 'worker';
    };

/** What the run's answer means for the prediction; a large output is stored on the way. */
export const endingOf = async (
  deps: RunDeps,
  prediction: Processing,
  response: ModelResponse | Error,
  runtimeMs: number,
  scrub: (text: string) => string,
  files: RunFiles,
): Promise<Ending> => {
  const failed = (error: string, ran: number | null = runtimeMs): Ending => ({
    type: 'failed',
    claim: prediction.claim,
    error: scrub(error),
    runtimeMs: ran,
    by: 'worker',
  });
  if (response instanceof ModelTimeout) {
    await deps.modelServer.cancel(prediction.id).catch(() => undefined);
    return failed(ENDINGS.runTimeout(deps.model.timeouts.runSeconds));
  }
  // The model never ran: an input that could not be fetched (or that the address guard refused) costs nothing.
  if (response instanceof InputFetchFailed) return failed(response.message, null);
  if (response instanceof Error) return failed(`the worker failed: ${response.message}`);
  switch (response.status) {
    case 'failed':
      return failed(response.error ?? 'the model failed without a message');
    case 'canceled':
      return failed(ENDINGS.modelStoppedItself);
    case 'succeeded': {
      const parsed = checkOutput(deps.model.output, response.output);
      if (!parsed.success) return failed(ENDINGS.outputInvalid(parsed.error.message));
      let kept: unknown;
      try {
        kept = await retrying(deps, 'storing the output files', prediction.id, () => files.keep(parsed.data));
      } catch (error) {
        if (error instanceof OutputFilesTooLarge) return failed(error.message);
        throw error;
      }
      const output = await storedOutputOf(deps, prediction, kept);
      return 'error' in output
        ? failed(output.error)
        : { type: 'succeeded', claim: prediction.claim, output, runtimeMs };
    }
  }
};

/** The output kept inline when small, in the outputs bucket when large, refused when too large. */
const storedOutputOf = async (
  deps: RunDeps,
  prediction: Processing,
  value: unknown,
): Promise<StoredOutput | { readonly error: string }> => {
  const json = JSON.stringify(value);
  const bytes = Buffer.byteLength(json);
  if (bytes > OUTPUT_LIMITS.maxBytes) return { error: ENDINGS.outputTooLarge(bytes, OUTPUT_LIMITS.maxBytes) };
  if (bytes <= OUTPUT_LIMITS.inlineBytes) return { kind: 'inline', value };
  const key = await retrying(deps, 'storing the output', prediction.id, () =>
    deps.outputs.put(prediction.id, prediction.claim, json),
  );
  return { kind: 'object', key, bytes };
};

/** The model's measure of its run, and the metrics it recorded itself beside it. */
const metricsReportOf = (
  metrics: Readonly<Record<string, unknown>> | null,
): Pick<RunReport, 'predictTimeMs' | 'modelMetrics'> => {
  const { predict_time: predictTime, ...own } = metrics ?? {};
  return {
    predictTimeMs: typeof predictTime === 'number' ? Math.round(predictTime * 1000) : null,
    modelMetrics: Object.keys(own).length === 0 ? null : own,
  };
};

/** What the model's answer tells of its run, kept with the prediction's end; the files it streamed are kept (once). */
export const reportOf = async (
  deps: RunDeps,
  predictionId: string,
  response: ModelResponse,
  scrub: (text: string) => string,
  files: RunFiles,
): Promise<RunReport> => ({
  logs: scrub(response.logs ?? ''),
  ...metricsReportOf(response.metrics ?? null),
  streamed:
    response.streamed === null || response.streamed === undefined
      ? null
      : await retrying(deps, 'storing the streamed files', predictionId, () =>
          Promise.all((response.streamed ?? []).map((piece) => files.keepPiece(piece))),
        ).catch((error: unknown) => {
          // Past the limit: the end says so (endingOf); the pieces are not kept.
          if (error instanceof OutputFilesTooLarge) return null;
          throw error;
        }),
});

/**
 * Ends the execution with the task token, then writes the end and settles what it still owes.
 * The execution first: an end that owes nothing else (no webhook) is then written once and never
 * touched again. A worker that dies between the two leaves the prediction `processing`: its
 * message comes back and the run is taken up again, as after any lost worker. One whose token
 * fails writes an end that owes the execution's end, as before. A cancel that lands between the
 * two ends the prediction `canceled` behind an execution that succeeded: only the execution's
 * history tells the run's result, which no longer counts. A run that recorded nothing on the
 * prediction leaves it stored as it was claimed: the end is written from that, not read first; a
 * cancel or a takeover meanwhile fails the write's condition, and the end reads and decides again.
 */
export const finish = async (
  deps: RunDeps,
  prediction: Processing,
  event: Extract<PredictionEvent, { type: 'succeeded' | 'failed' | 'canceled' }>,
  /** The prediction as stored, when the worker knows it (RunningPrediction.stored). */
  stored: Processing | undefined,
): Promise<RunOutcome> => {
  const executionEnded = await deps.effects
    .stopExecution({ id: prediction.id, model: prediction.model, status: event.type })
    .then(
      () => true,
      (error: unknown) => {
        deps.log('the execution could not be ended; the end owes it', {
          predictionId: prediction.id,
          error: String(error),
        });
        return false;
      },
    );
  let ended: Awaited<ReturnType<typeof endPrediction>>;
  try {
    ended = await retrying(deps, 'recording the result', prediction.id, () =>
      endPrediction(deps.effects, prediction.id, { ...event, executionEnded }, stored),
    );
  } catch (error) {
    if (!(error instanceof EffectsOwed)) throw error;
    deps.log('the prediction has ended; what its end owes and could not be done is left to the sweeper', {
      predictionId: prediction.id,
      error: String(error.errors),
    });
    return 'ended';
  }
  if (ended.ok) return 'ended';
  // Canceled meanwhile, or the claim was taken over: the result no longer counts.
  if (ended.error.code === 'prediction_finished' || ended.error.code === 'claim_lost') return 'stopped';
  throw ended.error;
};
