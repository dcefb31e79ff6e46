import { runDeadline } from '../domain/phases.ts';
import { webhookWants } from '../domain/prediction.ts';
import { owedEndingEvent } from '../domain/transition.ts';
import { ModelBusy, ModelUnavailable, type ModelResponse } from '../ports/model-server.ts';
import { InputFetchFailed } from '../ports/run-inputs.ts';
import { applyEvent } from './apply-event.ts';
import type { Processing } from './claim-job.ts';
import { inputOf } from './read-input.ts';
import { endingOf, finish, reportOf } from './run/ending.ts';
import type { RunDeps, RunOutcome } from './run/run-deps.ts';
import { RunningPrediction } from './run/running.ts';

export type { RunDeps, RunOutcome } from './run/run-deps.ts';

/** Time the model server gets past the run limit to answer before the run counts as timed out. */
const ANSWER_GRACE_MS = 2000;
/**
 * How long a run being handed back may take to stop on the model server; then it is given back
 * anyway, well before the orchestrator's SIGKILL (ECS waits 20 s past the drain).
 */
export const HAND_BACK_WAIT_MS = 10_000;

/**
 * Runs a prediction this worker claimed, on the model server beside it, and ends it here, in
 * four steps (docs/architecture.md, "The worker's run"):
 * 1. `begin`: the input read, the start webhook sent;
 * 2. `runWatched`: the file inputs fetched and the model run, while the lease is renewed every
 *    heartbeat and the run looked at every `checkMs` (RunningPrediction), and handed back at the
 *    drain deadline;
 * 3. `afterRun`: a run stopped, lost or handed back goes no further;
 * 4. `endRun`: the output stored (inline when small, in the outputs bucket when large — never in
 *    the workflow), status, cost and hold in one write, its webhook queued and its execution ended
 *    with the task token.
 */
export const runPrediction = async (deps: RunDeps, prediction: Processing): Promise<RunOutcome> => {
  const run = await begin(deps, prediction);
  const startedMs = deps.clock.now();
  const response = await runWatched(deps, run);
  const runtimeMs = Math.max(0, deps.clock.now() - startedMs);
  // The model server answered: its slot is free for the next job while this one's end is recorded.
  if (!(response instanceof Error)) deps.runEnded?.();
  const over = await afterRun(deps, run, response);
  return over ?? (await endRun(deps, run, response, runtimeMs));
};

/** The prediction's input read (inline or from the outputs bucket), and its start webhook sent. */
const begin = async (deps: RunDeps, prediction: Processing): Promise<RunningPrediction> => {
  const run = new RunningPrediction(deps, prediction, await inputOf(prediction, deps.outputs));
  if (webhookWants(prediction, 'start')) {
    await run
      .notify(['start'])
      .catch((error: unknown) =>
        deps.log('the start webhook could not be queued', { predictionId: run.id, error: String(error) }),
      );
  }
  return run;
};

/** Repeats `step` every `ms` until `over` aborts; a step's failure is logged, and the next one comes. */
const every = async (
  deps: RunDeps,
  ms: number,
  over: AbortSignal,
  what: string,
  predictionId: string,
  step: () => Promise<void>,
): Promise<void> => {
  for (;;) {
    await deps.sleep(ms, over);
    if (over.aborted) return;
    await step().catch((error: unknown) => deps.log(what, { predictionId, error: String(error) }));
  }
};

/**
 * The run on the model server, its inputs fetched first, while the lease is renewed and the run
 * looked at; at the drain deadline it is stopped and given back once it has stopped, or after
 * HAND_BACK_WAIT_MS. Its inputs are let go of once it is over.
 */
const runWatched = async (deps: RunDeps, run: RunningPrediction): Promise<ModelResponse | Error> => {
  const over = new AbortController();
  const looking = every(deps, deps.checkMs, over.signal, 'status check failed', run.id, () => run.look());
  const leasing = every(deps, deps.heartbeatMs, over.signal, 'lease renewal failed', run.id, deps.renewLease);
  let giveUp: (why: Error) => void = () => undefined;
  const givenUp = new Promise<Error>((resolve) => (giveUp = resolve));
  const handBack = () => {
    if (!run.handBack()) return;
    void deps.sleep(HAND_BACK_WAIT_MS, over.signal).then(() => {
      if (!over.signal.aborted) giveUp(new Error('the run did not stop in time'));
    });
  };
  if (deps.handBack?.aborted) handBack();
  else deps.handBack?.addEventListener('abort', handBack, { once: true });
  try {
    const ran = callModel(deps, run).catch((error: unknown) =>
      error instanceof Error ? error : new Error(String(error)),
    );
    return await Promise.race([ran, givenUp]);
  } finally {
    deps.handBack?.removeEventListener('abort', handBack);
    over.abort();
    await Promise.all([looking, leasing]);
    await deps.inputs
      .release(run.id)
      .catch((error: unknown) =>
        deps.log('the run inputs could not be let go of', { predictionId: run.id, error: String(error) }),
      );
  }
};

/** The file inputs fetched, then the run on the model server, with the time left to its deadline. */
const callModel = async (deps: RunDeps, run: RunningPrediction): Promise<ModelResponse | Error> => {
  const input = await deps.inputs.prepare(run.id, run.given, run.stopRun.signal);
  if (run.stopRun.signal.aborted) return new InputFetchFailed('stopped before the run began');
  const answerDue = runDeadline(run.prediction.startedAt, run.limits);
  return deps.modelServer.predict(run.id, input, Math.max(1000, answerDue - deps.clock.now() + ANSWER_GRACE_MS));
};

/**
 * A run that goes no further than its stop: stopped by someone else's end or takeover, handed
 * back at the drain deadline (unless it succeeded in that moment), or lost with its model server.
 * What was held back by the webhook interval goes out first; null for a run that ends here.
 */
const afterRun = async (
  deps: RunDeps,
  run: RunningPrediction,
  response: ModelResponse | Error,
): Promise<RunOutcome | null> => {
  if (run.stopped) return 'stopped';
  await run
    .notify(run.unsent)
    .catch((error: unknown) =>
      deps.log('run webhooks could not be queued', { predictionId: run.id, error: String(error) }),
    );
  const { claim } = run.prediction;
  if (run.handingBack && !succeeded(response)) {
    deps.log('the run was handed back to the queue for another worker', { predictionId: run.id });
    await applyEvent(deps.effects, run.id, { type: 'lost', atMs: deps.clock.now(), claim, handedBack: true });
    return 'handedBack';
  }
  if (response instanceof ModelUnavailable || response instanceof ModelBusy) {
    deps.log('the model server went away mid-run; the prediction goes back to the queue', {
      predictionId: run.id,
      error: response.message,
    });
    await applyEvent(deps.effects, run.id, { type: 'lost', atMs: deps.clock.now(), claim });
    return 'requeued';
  }
  return null;
};

const succeeded = (response: ModelResponse | Error): boolean =>
  !(response instanceof Error) && response.status === 'succeeded';

/** The prediction's end, from the run's answer or from why it was stopped, recorded (finish). */
const endRun = async (
  deps: RunDeps,
  run: RunningPrediction,
  response: ModelResponse | Error,
  runtimeMs: number,
): Promise<RunOutcome> => {
  const { prediction, scrub, files } = run;
  const { claim } = prediction;
  const report = response instanceof Error ? {} : await reportOf(deps, run.id, response, scrub, files);
  if (run.filesOverflow !== null) {
    const error = run.filesOverflow.message;
    return finish(
      deps,
      prediction,
      { type: 'failed', atMs: deps.clock.now(), by: 'worker', claim, runtimeMs, error, ...report },
      run.stored,
    );
  }
  // A run that finished in the moment it came to be owed an ending (its deadline) keeps its result.
  if (run.owedAtStop !== null && !succeeded(response)) {
    const event = { ...owedEndingEvent(run.owedAtStop, deps.clock.now(), 'worker'), claim, runtimeMs, ...report };
    return finish(deps, prediction, event, run.stored);
  }
  const ending = await endingOf(deps, prediction, response, runtimeMs, scrub, files);
  return finish(deps, prediction, { ...ending, ...report, atMs: deps.clock.now() }, run.stored);
};
