import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { sqs } from '../shared/adapters/aws-clients.ts';
import { taskProtectionOf } from '../shared/adapters/ecs-task-protection.ts';
import { s3OutputStore } from '../shared/adapters/output-store.ts';
import { dynamoPredictionStore } from '../shared/adapters/prediction-store.ts';
import { sqsWebhookNotifier } from '../shared/adapters/webhook-queue.ts';
import { sfnTaskCallbacks } from '../shared/adapters/workflow-client.ts';
import { systemClock } from '../shared/domain/clock.ts';
import { METRICS_NAMESPACE } from '../shared/metrics.ts';
import { phaseLimitsOf, requireModel } from '../shared/models/registry.ts';
import type { EffectDeps } from '../shared/use-cases/end-prediction.ts';
import type { DispatchMessage } from '../shared/workflow/messages.ts';
import { DEFAULT_DOWNLOAD_LIMITS, downloadToFile } from '../shared/adapters/guarded-download.ts';
import { ENDINGS } from '../shared/domain/endings.ts';
import { endUnlessEnded } from '../shared/use-cases/end-prediction.ts';
import { callbackAddress } from './callback-address.ts';
import { CogCallbacks } from './cog-callbacks.ts';
import { cogModelClient } from './model-client.ts';
import { leftoverRuns, removeRunFolder, runFolder } from './run-inputs.ts';
import { pollQueue, type Disposition } from './poller.ts';
import { runClaimed } from './run-job.ts';
import { scaleInGuard } from './scale-in-guard.ts';
import { claimJob } from '../shared/use-cases/claim-job.ts';

const env = z
  .object({
    PROGNOZ_TABLE_NAME: z.string().min(1),
    PROGNOZ_MODEL_ID: z.string().min(1),
    PROGNOZ_QUEUE_URL: z.url(),
    PROGNOZ_WEBHOOK_QUEUE_URL: z.url(),
    PROGNOZ_OUTPUT_BUCKET: z.string().min(1),
    PROGNOZ_MODEL_URL: z.url().default('http://127.0.0.1:5000'),
    /** The port of this worker coglet sends the runs' webhooks to (0: any free one). */
    PROGNOZ_CALLBACK_PORT: z.coerce.number().int().min(0).max(65535).default(0),
    /** The address coglet reaches the worker at; `auto`: this container's own (an ECS task on Docker's bridge). */
    PROGNOZ_CALLBACK_HOST: z.string().min(1).default('127.0.0.1'),
    /** Where file inputs are fetched to: a folder the model server sees at the same path. */
    PROGNOZ_INPUTS_DIR: z.string().min(1).optional(),
    /** File inputs on loopback addresses may be fetched (the local runtime only). */
    PROGNOZ_ALLOW_LOOPBACK: z.enum(['true', 'false']).default('false'),
    /** How often a running prediction is checked for a cancel (ms). */
    PROGNOZ_CHECK_MS: z.coerce.number().int().positive().default(1000),
    /** After SIGTERM, how long running jobs may go on before they are handed back to the queue (s). */
    PROGNOZ_DRAIN_SECONDS: z.coerce.number().min(0).default(100),
    /** The ECS agent's endpoint (ECS sets it in a task): task scale-in protection goes through it. */
    ECS_AGENT_URI: z.url().optional(),
  })
  .parse(process.env);

const logger = new Logger({ serviceName: 'prognoz-worker' });
const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: 'prognoz-worker' });
const log = (message: string, fields: Record<string, unknown> = {}) => logger.info(message, fields);
const model = requireModel(env.PROGNOZ_MODEL_ID);
const limits = phaseLimitsOf(model);
const cogCallbacks = new CogCallbacks();
await cogCallbacks.listen(env.PROGNOZ_CALLBACK_PORT, await callbackAddress(env.PROGNOZ_CALLBACK_HOST));
const modelServer = cogModelClient(env.PROGNOZ_MODEL_URL, cogCallbacks, model);
const inputsDir = env.PROGNOZ_INPUTS_DIR ?? path.join(tmpdir(), 'prognoz-inputs', model.id.replace('/', '--'));
await mkdir(inputsDir, { recursive: true });
const addressPolicy = { allowLoopback: env.PROGNOZ_ALLOW_LOOPBACK === 'true' };
const download = (url: string, file: string, signal: AbortSignal) =>
  downloadToFile(url, file, addressPolicy, DEFAULT_DOWNLOAD_LIMITS, signal);
const store = dynamoPredictionStore(env.PROGNOZ_TABLE_NAME);
const outputs = s3OutputStore(env.PROGNOZ_OUTPUT_BUCKET);
const notifier = sqsWebhookNotifier(env.PROGNOZ_WEBHOOK_QUEUE_URL);
const callbacks = sfnTaskCallbacks();

const guard = scaleInGuard({
  protection: taskProtectionOf(env.ECS_AGENT_URI, (message) => log(message)),
  runSeconds: model.timeouts.runSeconds,
  clock: systemClock,
  warn: (message, fields) => logger.warn(message, fields),
});

// Stopping: no new job at once; the running ones may end within the drain, then are handed back.
const stop = new AbortController();
const handBack = new AbortController();
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    if (stop.signal.aborted) return;
    log('stopping: no new jobs; running ones may end within the drain, then go back to the queue', {
      signal,
      drainSeconds: env.PROGNOZ_DRAIN_SECONDS,
    });
    stop.abort();
    setTimeout(() => handBack.abort(), env.PROGNOZ_DRAIN_SECONDS * 1000).unref();
  });
}

/** One job: claim it (or see why not), run it, and say what becomes of its message. */
const handle = async (
  message: DispatchMessage,
  renewLease: () => Promise<void>,
  setupError: string | null,
): Promise<Disposition> => {
  // The task token ends the execution: used once, by whoever of this worker ends the prediction.
  const effects: EffectDeps = {
    store,
    notifier,
    stopExecution: (prediction) => callbacks.succeed(message.taskToken, { status: prediction.status }),
  };
  const id = message.predictionId;
  const taken = await claimJob(
    {
      store,
      clock: systemClock,
      ids: randomUUID,
      limits,
      effects,
      log,
      countLost: () => {
        metrics.addMetric('WorkerLost', MetricUnit.Count, 1);
        metrics.publishStoredMetrics();
      },
    },
    id,
  );
  if (taken.kind === 'done') return { kind: 'delete' };
  if (taken.kind === 'later') return { kind: 'return', afterSeconds: Math.ceil(taken.afterMs / 1000) };
  if (setupError !== null) {
    // The model cannot run anything: its predictions end at once with why, rather than wait out the queue.
    const { claim } = taken.prediction;
    await endUnlessEnded(effects, id, {
      type: 'failed',
      atMs: systemClock.now(),
      by: 'worker',
      claim,
      error: ENDINGS.setupFailed(setupError),
      runtimeMs: null,
    });
    return { kind: 'delete' };
  }
  const outcome = await guard.protecting(() =>
    runClaimed(
      {
        model,
        store,
        outputs,
        modelServer,
        inputs: { dir: inputsDir, download },
        clock: systemClock,
        checkMs: Math.min(env.PROGNOZ_CHECK_MS, model.timeouts.heartbeatSeconds * 1000),
        heartbeatMs: model.timeouts.heartbeatSeconds * 1000,
        renewLease,
        effects,
        sleep: (ms) => sleep(ms),
        log,
        handBack: handBack.signal,
      },
      taken.prediction,
    ),
  );
  log('run over', { predictionId: id, outcome });
  // Requeued or handed back: back to the queue at once, for the next worker whose model server is up.
  return outcome === 'requeued' || outcome === 'handedBack' ? { kind: 'return', afterSeconds: 0 } : { kind: 'delete' };
};

// Runs left by a worker that died (their folders are still here) are stopped: their predictions
// come back from the queue when their leases end, and run again.
for (const orphan of await leftoverRuns(inputsDir)) {
  log('canceling a run an earlier worker left on the model server', { predictionId: orphan });
  await modelServer.cancel(orphan).catch(() => undefined);
  await removeRunFolder(runFolder(inputsDir, orphan));
}

log('worker started', {
  model: model.id,
  queue: env.PROGNOZ_QUEUE_URL,
  modelServer: env.PROGNOZ_MODEL_URL,
  leaseSeconds: limits.leaseSeconds,
});
await pollQueue({
  sqs: sqs(),
  queueUrl: env.PROGNOZ_QUEUE_URL,
  modelServer,
  slots: model.predictor.concurrency,
  leaseSeconds: limits.leaseSeconds,
  signal: stop.signal,
  log,
  handle,
});
await cogCallbacks.close();
log('worker stopped');
// Drained: exit 0 (ECS does not restart a worker that exits 0) even if a run given up on is still watched.
process.exit(0);
