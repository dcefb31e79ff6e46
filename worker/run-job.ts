import type { Clock } from '../shared/domain/clock.ts';
import { ENDINGS, OUTPUT_LIMITS } from '../shared/domain/endings.ts';
import { endingOwed, runDeadline, type OwedEnding } from '../shared/domain/phases.ts';
import { webhookWants, type StoredOutput } from '../shared/domain/prediction.ts';
import { owedEndingEvent, type PredictionEvent } from '../shared/domain/transition.ts';
import type { RunReport } from '../shared/domain/run-report.ts';
import type { ModelDefinition } from '../shared/models/registry.ts';
import { phaseLimitsOf } from '../shared/models/registry.ts';
import type { OutputStore } from '../shared/ports/output-store.ts';
import type { PredictionStore } from '../shared/ports/prediction-store.ts';
import { applyEvent } from '../shared/use-cases/apply-event.ts';
import { EffectsOwed, endPrediction, type EffectDeps } from '../shared/use-cases/end-prediction.ts';
import type { RunEvent } from '../shared/workflow/messages.ts';
import { secretScrubber } from '../shared/domain/secrets.ts';
import { OutputFilesTooLarge, RunFiles } from './output-files.ts';
import { ModelBusy, ModelTimeout, ModelUnavailable, type ModelClient, type ModelResponse } from './model-client.ts';
import { InputFetchFailed, prepareInputs, removeRunFolder, runFolder, type Download } from './run-inputs.ts';
import type { SharedFolder } from './shared-folders.ts';
import { checkOutput } from '../shared/models/cog-schema.ts';
import { freshWatch, stepRun } from './run-events.ts';
import type { Processing } from '../shared/use-cases/claim-job.ts';
import { inputOf } from '../shared/use-cases/read-input.ts';

export interface RunDeps {
  readonly model: ModelDefinition;
  readonly store: PredictionStore;
  readonly outputs: Pick<OutputStore, 'put' | 'putFile' | 'get'>;
  readonly modelServer: ModelClient;
  /**
   * Where the run's file inputs are fetched to, how, and how the model server is given them (a
   * run's folder served to it over HTTP: CogCallbacks.shareInputs).
   */
  readonly inputs: {
    readonly dir: string;
    readonly download: Download;
    readonly share: (folder: string) => SharedFolder;
  };
  readonly clock: Clock;
  /** How often the worker looks for a cancel (and records progress). */
  readonly checkMs: number;
  /** How often the worker renews its lease on the job (the model's heartbeat). */
  readonly heartbeatMs: number;
  /** Renews the lease: keeps the queue message hidden for another lease. */
  readonly renewLease: () => Promise<void>;
  /** Ends the prediction's execution with the job's task token (used once). */
  readonly effects: EffectDeps;
  readonly sleep: (ms: number) => Promise<void>;
  readonly log: (message: string, fields?: Record<string, unknown>) => void;
  /** Aborted at the worker's drain deadline: a run still going is stopped and handed back to the queue. */
  readonly handBack?: AbortSignal;
  /** Told once the model server has answered the run (its result in hand, before the end is recorded). */
  readonly runEnded?: () => void;
}

export type RunOutcome =
  /** This worker ended the prediction. */
  | 'ended'
  /** Someone else ended it (a cancel, the sweeper) or took the run over: the model was stopped. */
  | 'stopped'
  /** The model server went away mid-run: the prediction is back in the queue for another attempt. */
  | 'requeued'
  /** The worker was stopping and its drain deadline came: the run was stopped and given back, its attempt not counted. */
  | 'handedBack';

/** Time the model server gets past the run limit to answer before the run counts as timed out. */
const ANSWER_GRACE_MS = 2000;
/** Pauses before retrying a write of the result that failed (the job is done; losing it would rerun it). */
const END_RETRY_PAUSES_MS = [500, 2000, 5000];
/**
 * How long a run being handed back may take to stop on the model server; then it is given back
 * anyway, well before the orchestrator's SIGKILL (ECS waits 20 s past the drain).
 */
const HAND_BACK_WAIT_MS = 10_000;

/**
 * Runs a prediction this worker claimed, on the model server beside it, and ends it here: the
 * output stored (inline when small, in the outputs bucket when large — never in the workflow),
 * status, cost and hold in one write, then its webhook queued and its execution ended with the
 * task token. While it runs, the worker renews its lease every heartbeat and checks every
 * second that the prediction is still its own; a cancel or a takeover stops the model. Each look
 * also records the run's progress, logs and streamed output, sends the run webhooks the
 * prediction asked for, and stops a run whose deadline (`Cancel-After`) has passed. A run still
 * going when the stopping worker's drain deadline comes (`handBack`) is stopped and handed back
 * to the queue, its attempt not counted.
 */
export const runClaimed = async (deps: RunDeps, prediction: Processing): Promise<RunOutcome> => {
  const { id, claim } = prediction;
  const limits = phaseLimitsOf(deps.model);
  const given = await inputOf(prediction, deps.outputs);
  let stopped = false;
  /** The ending the prediction came to be owed while it ran (its deadline): the run was stopped for it. */
  let owedAtStop: OwedEnding | null = null;
  let handingBack = false;
  /** The prediction as it is stored, while this worker knows it: as claimed, until a look records the run. */
  let stored: Processing | undefined = prediction;
  let watch = freshWatch();
  // Stops the fetching of file inputs, as a cancel to the model server stops its run.
  const stopRun = new AbortController();
  const scrub = secretScrubber(deps.model.secrets, given);
  // The files the run returns, kept in the outputs bucket as they come (an iterator's pieces) and at its end.
  const files = new RunFiles(deps.outputs, id, claim);
  let filesOverflow: OutputFilesTooLarge | null = null;
  const notify = (events: readonly RunEvent[]) =>
    Promise.all(
      events.map((event) => deps.effects.notifier.notify({ predictionId: id, event, atMs: deps.clock.now() })),
    );
  const check = async () => {
    if (owedAtStop !== null || stopped || handingBack) return;
    const owed = endingOwed(prediction, limits, deps.clock.now());
    if (owed !== null) {
      owedAtStop = owed;
      deps.log('the prediction is owed an ending; stopping the model', { predictionId: id, error: owed.error });
      stopRun.abort();
      await deps.modelServer.cancel(id).catch(() => undefined);
      return;
    }
    const state = await runStateWithFiles();
    if (state === 'overflow') return;
    const step =
      state === null ? null : stepRun(prediction, watch, { ...state, logs: scrub(state.logs) }, deps.clock.now());
    const changed = step !== null && Object.keys(step.update).length > 0;
    // The record is written only while the prediction is still ours: when it is written, that was
    // the check, and the table is asked once a look rather than twice.
    if (changed && (await deps.store.recordRun(id, claim, step.update))) stored = undefined;
    else {
      const current = await deps.store.statusOf(id);
      if (current?.status !== 'processing' || current.claim !== claim) {
        stopped = true;
        deps.log('the prediction was ended or taken over while it ran; stopping the model', {
          predictionId: id,
          status: current?.status,
        });
        stopRun.abort();
        await deps.modelServer.cancel(id).catch(() => undefined);
        return;
      }
      if (changed) return; // its condition failed, yet it reads as ours now: the next look records it
    }
    if (step === null) return;
    watch = step.watch;
    await notify(step.events);
  };
  /** How the run stands, its streamed files kept; a run whose files outgrew the limit is stopped. */
  const runStateWithFiles = async () => {
    const state = await deps.modelServer.runState(id).catch(() => null);
    if (state === null) return null;
    try {
      return { ...state, streamed: await Promise.all(state.streamed.map((piece) => files.keepPiece(piece))) };
    } catch (error) {
      if (!(error instanceof OutputFilesTooLarge)) throw error;
      filesOverflow = error;
      deps.log('the run returned more files than a prediction may; stopping the model', { predictionId: id });
      stopRun.abort();
      await deps.modelServer.cancel(id).catch(() => undefined);
      return 'overflow' as const;
    }
  };
  if (webhookWants(prediction, 'start')) {
    await notify(['start']).catch((error: unknown) =>
      deps.log('the start webhook could not be queued', { predictionId: id, error: String(error) }),
    );
  }
  const watching = setInterval(
    () =>
      void check().catch((error: unknown) =>
        deps.log('status check failed', { predictionId: id, error: String(error) }),
      ),
    deps.checkMs,
  );
  const leasing = setInterval(
    () =>
      void deps
        .renewLease()
        .catch((error: unknown) => deps.log('lease renewal failed', { predictionId: id, error: String(error) })),
    deps.heartbeatMs,
  );

  // At the drain deadline the run is stopped; it is given back once it has stopped, or after HAND_BACK_WAIT_MS.
  let overdue: NodeJS.Timeout | undefined;
  let giveUp: (why: Error) => void = () => undefined;
  const givenUp = new Promise<Error>((resolve) => (giveUp = resolve));
  const handBack = () => {
    if (stopped || owedAtStop !== null || handingBack) return;
    handingBack = true;
    deps.log('the drain deadline came; stopping the run to hand it back to the queue', { predictionId: id });
    stopRun.abort();
    void deps.modelServer.cancel(id).catch(() => undefined);
    overdue = setTimeout(() => giveUp(new Error('the run did not stop in time')), HAND_BACK_WAIT_MS);
  };
  if (deps.handBack?.aborted) handBack();
  else deps.handBack?.addEventListener('abort', handBack, { once: true });

  const startedMs = deps.clock.now();
  const answerDue = runDeadline(prediction.startedAt, limits);
  const folder = runFolder(deps.inputs.dir, id);
  const shared = deps.inputs.share(folder);
  const running = async (): Promise<ModelResponse | Error> => {
    const input = await prepareInputs(
      deps.model,
      given,
      { path: folder, urlOf: shared.urlOf },
      deps.inputs.download,
      stopRun.signal,
    );
    return stopRun.signal.aborted
      ? new InputFetchFailed('stopped before the run began')
      : await deps.modelServer.predict(id, input, Math.max(1000, answerDue - deps.clock.now() + ANSWER_GRACE_MS));
  };
  let response: ModelResponse | Error;
  try {
    const ran = running().catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
    response = await Promise.race([ran, givenUp]);
  } finally {
    deps.handBack?.removeEventListener('abort', handBack);
    clearTimeout(overdue);
    clearInterval(watching);
    clearInterval(leasing);
    shared.close();
    await removeRunFolder(folder).catch((error: unknown) =>
      deps.log('the run folder could not be removed', { predictionId: id, error: String(error) }),
    );
  }
  const runtimeMs = Math.max(0, deps.clock.now() - startedMs);
  // The model server answered: its slot is free for the next job while this one's end is recorded.
  if (!(response instanceof Error)) deps.runEnded?.();
  if (stopped) return 'stopped';
  // What was held back by the webhook interval goes out now; the prediction's end follows.
  await notify([...watch.unsent]).catch((error: unknown) =>
    deps.log('run webhooks could not be queued', { predictionId: id, error: String(error) }),
  );

  // A run that succeeded in the moment its drain deadline came keeps its result; any other is given back.
  const succeeded = !(response instanceof Error) && response.status === 'succeeded';
  if (handingBack && !succeeded) {
    deps.log('the run was handed back to the queue for another worker', { predictionId: id });
    await applyEvent(deps.store, id, { type: 'lost', atMs: deps.clock.now(), claim, handedBack: true });
    return 'handedBack';
  }
  if (response instanceof ModelUnavailable || response instanceof ModelBusy) {
    deps.log('the model server went away mid-run; the prediction goes back to the queue', {
      predictionId: id,
      error: response.message,
    });
    await applyEvent(deps.store, id, { type: 'lost', atMs: deps.clock.now(), claim });
    return 'requeued';
  }
  const report = response instanceof Error ? {} : await reportOf(deps, id, response, scrub, files);
  if (filesOverflow !== null) {
    return finish(
      deps,
      prediction,
      {
        type: 'failed',
        atMs: deps.clock.now(),
        by: 'worker',
        claim,
        runtimeMs,
        error: (filesOverflow as OutputFilesTooLarge).message,
        ...report,
      },
      stored,
    );
  }
  // A run that finished in the moment it came to be owed an ending (its deadline) keeps its result.
  if (owedAtStop !== null && !succeeded) {
    return finish(
      deps,
      prediction,
      {
        ...owedEndingEvent(owedAtStop, deps.clock.now(), 'worker'),
        claim,
        runtimeMs,
        ...report,
      },
      stored,
    );
  }
  const ending = await endingOf(deps, prediction, response, runtimeMs, limits.runSeconds, scrub, files);
  return finish(deps, prediction, { ...ending, ...report, atMs: deps.clock.now() }, stored);
};

/** The run is done and losing its result would run it again: its writes are retried a few times. */
const retrying = async <T>(deps: RunDeps, what: string, predictionId: string, write: () => Promise<T>): Promise<T> => {
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
const endingOf = async (
  deps: RunDeps,
  prediction: Processing,
  response: ModelResponse | Error,
  runtimeMs: number,
  runSeconds: number,
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
    return failed(ENDINGS.runTimeout(runSeconds));
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
      const json = JSON.stringify(kept);
      const bytes = Buffer.byteLength(json);
      if (bytes > OUTPUT_LIMITS.maxBytes) return failed(ENDINGS.outputTooLarge(bytes, OUTPUT_LIMITS.maxBytes));
      const output: StoredOutput =
        bytes <= OUTPUT_LIMITS.inlineBytes
          ? { kind: 'inline', value: kept }
          : {
              kind: 'object',
              key: await retrying(deps, 'storing the output', prediction.id, () =>
                deps.outputs.put(prediction.id, prediction.claim, json),
              ),
              bytes,
            };
      return { type: 'succeeded', claim: prediction.claim, output, runtimeMs };
    }
  }
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
const reportOf = async (
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
const finish = async (
  deps: RunDeps,
  prediction: Processing,
  event: Extract<PredictionEvent, { type: 'succeeded' | 'failed' | 'canceled' }>,
  /** The prediction as stored, when the worker knows it (`stored` in runClaimed). */
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
