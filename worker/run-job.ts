import type { PredictionStore } from '../shared/adapters/prediction-store.ts';
import { TASK_CLOSED_ERRORS, type TaskCallbacks } from '../shared/adapters/workflow-client.ts';
import type { Clock } from '../shared/domain/clock.ts';
import type { PredictionId } from '../shared/domain/ids.ts';
import { isTerminal } from '../shared/domain/prediction.ts';
import type { ModelDefinition } from '../shared/models/registry.ts';
import { applyEvent } from '../shared/use-cases/apply-event.ts';
import { MODEL_FAILED, WORKER_FAILED, type DispatchMessage, type RunFailureCause } from '../shared/workflow/messages.ts';
import { ModelUnavailable, type ModelClient, type ModelResponse } from './model-client.ts';

export interface JobDeps {
  readonly model: ModelDefinition;
  readonly store: PredictionStore;
  readonly callbacks: TaskCallbacks;
  readonly modelServer: ModelClient;
  readonly clock: Clock;
  /** How often to heartbeat; well under the model's HeartbeatSeconds. */
  readonly heartbeatMs: number;
  /** Keeps the queue message hidden while the job runs. */
  readonly extendVisibility: () => Promise<void>;
  readonly log: (message: string, fields?: Record<string, unknown>) => void;
}

export type JobOutcome = 'skipped' | 'reported' | 'canceled';

/** Progress is written to the prediction in steps of at least this much, to spare the table. */
const PROGRESS_STEP = 0.05;

const isTaskClosed = (error: unknown): boolean => error instanceof Error && TASK_CLOSED_ERRORS.has(error.name);

/**
 * Runs one dispatched prediction. The caller deletes the queue message whatever this returns;
 * it throws only when the outcome could not be reported, so that the message comes back.
 */
export const runJob = async (deps: JobDeps, message: DispatchMessage): Promise<JobOutcome> => {
  const id = message.predictionId as PredictionId;
  const before = await deps.store.get(id);
  if (!before || isTerminal(before)) {
    deps.log('skipping a prediction that is gone or already finished', { predictionId: id, status: before?.status });
    return 'skipped';
  }
  const started = await applyEvent(deps.store, id, { type: 'started', atMs: deps.clock.now() });
  if (!started.ok) {
    deps.log('prediction ended before it could start', { predictionId: id, code: started.error.code });
    return 'skipped';
  }

  let taskClosed = false;
  let reportedProgress = 0;
  const recordProgress = async () => {
    const fraction = await deps.modelServer.progress(id).catch(() => null);
    if (fraction === null || fraction - reportedProgress < PROGRESS_STEP) return;
    reportedProgress = fraction;
    await deps.store.recordProgress(id, fraction);
  };
  const heartbeat = setInterval(() => {
    void (async () => {
      try {
        await deps.callbacks.heartbeat(message.taskToken);
        await deps.extendVisibility();
        await recordProgress();
      } catch (error) {
        if (!isTaskClosed(error) || taskClosed) return;
        // The execution was stopped (cancel) or timed out: the model must stop working on it.
        taskClosed = true;
        deps.log('task closed while running; canceling the model', { predictionId: id });
        await deps.modelServer.cancel(id).catch(() => undefined);
      }
    })();
  }, deps.heartbeatMs);

  const t0 = deps.clock.now();
  let response: ModelResponse | Error;
  try {
    response = await deps.modelServer.predict(id, started.value.after.input);
  } catch (error) {
    response = error instanceof Error ? error : new Error(String(error));
  } finally {
    clearInterval(heartbeat);
  }
  const runtimeMs = Math.max(0, deps.clock.now() - t0);
  if (taskClosed) return 'canceled';

  try {
    await report(deps, message.taskToken, response, runtimeMs);
  } catch (error) {
    if (isTaskClosed(error)) return 'canceled';
    throw error;
  }
  return 'reported';
};

const report = async (deps: JobDeps, taskToken: string, response: ModelResponse | Error, runtimeMs: number): Promise<void> => {
  const fail = (error: string, message: string) => {
    const cause: RunFailureCause = { message, runtimeMs };
    return deps.callbacks.fail(taskToken, error, cause);
  };
  if (response instanceof ModelUnavailable) {
    return fail(WORKER_FAILED, 'the model server stopped while running this prediction; it was not retried');
  }
  if (response instanceof Error) return fail(WORKER_FAILED, `the worker failed: ${response.message}`);
  switch (response.status) {
    case 'succeeded': {
      const output = deps.model.output.safeParse(response.output);
      if (!output.success) return fail(MODEL_FAILED, `the model returned output that does not match its schema: ${output.error.message}`);
      return deps.callbacks.succeed(taskToken, { output: output.data, runtimeMs });
    }
    case 'failed':
      return fail(MODEL_FAILED, response.error ?? 'the model failed without a message');
    case 'canceled':
      return fail(MODEL_FAILED, 'the model stopped this prediction on its own');
  }
};
