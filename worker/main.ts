import { endingWiring } from '../shared/adapters/ending-wiring.ts';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sqs } from '../shared/adapters/sqs-client.ts';
import { taskProtectionOf } from '../shared/adapters/ecs-task-protection.ts';
import { s3OutputStore } from '../shared/adapters/output-store.ts';
import { sfnTaskCallbacks } from '../shared/adapters/workflow-client.ts';
import { processEnvironment } from '../shared/config/environment.ts';
import { workerConfigFromEnv } from '../shared/config/worker.ts';
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

const config = workerConfigFromEnv(processEnvironment());
const clock = systemClock;

const logger = new Logger({ serviceName: 'prognoz-worker' });
const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: 'prognoz-worker' });
const log = (message: string, fields: Record<string, unknown> = {}) => logger.info(message, fields);
const model = requireModel(config.modelId);
const limits = phaseLimitsOf(model);
const cogCallbacks = new CogCallbacks();
await cogCallbacks.listen(config.callbackPort, await callbackAddress(config.callbackHost, config.ecsMetadataUri));
const modelServer = cogModelClient(config.modelUrl, cogCallbacks, model);
const inputsDir = config.inputsDir ?? path.join(tmpdir(), 'prognoz-inputs', model.id.replace('/', '--'));
await mkdir(inputsDir, { recursive: true });
const addressPolicy = { allowLoopback: config.allowLoopback };
const download = (url: string, file: string, signal: AbortSignal) =>
  downloadToFile(url, file, addressPolicy, DEFAULT_DOWNLOAD_LIMITS, signal);
const { store, notifier, endingTeller } = endingWiring(config, clock, (message, fields) =>
  logger.warn(message, fields),
);
const outputs = s3OutputStore(config.outputBucket);
const callbacks = sfnTaskCallbacks();

const guard = scaleInGuard({
  protection: taskProtectionOf(config.ecsAgentUri ?? undefined, (message) => log(message)),
  runSeconds: model.timeouts.runSeconds,
  clock,
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
      drainSeconds: config.drainSeconds,
    });
    stop.abort();
    setTimeout(() => handBack.abort(), config.drainSeconds * 1000).unref();
  });
}

/** One job: claim it (or see why not), run it, and say what becomes of its message. */
const handle = async (
  message: DispatchMessage,
  renewLease: () => Promise<void>,
  setupError: string | null,
  runEnded: () => void,
): Promise<Disposition> => {
  // The task token ends the execution: used once, by whoever of this worker ends the prediction.
  const effects: EffectDeps = {
    store,
    notifier,
    endingTeller,
    stopExecution: (prediction) => callbacks.succeed(message.taskToken, { status: prediction.status }),
  };
  const id = message.predictionId;
  const taken = await claimJob(
    {
      store,
      clock,
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
      atMs: clock.now(),
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
        inputs: { dir: inputsDir, download, share: (folder) => cogCallbacks.shareInputs(folder) },
        clock,
        checkMs: Math.min(config.checkMs, model.timeouts.heartbeatSeconds * 1000),
        heartbeatMs: model.timeouts.heartbeatSeconds * 1000,
        renewLease,
        effects,
        sleep: (ms) => sleep(ms),
        log,
        handBack: handBack.signal,
        runEnded,
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
  queue: config.queueUrl,
  modelServer: config.modelUrl,
  leaseSeconds: limits.leaseSeconds,
});
await pollQueue({
  sqs: await sqs(),
  queueUrl: config.queueUrl,
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
