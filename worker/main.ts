import { endingWiring } from '../shared/adapters/ending-wiring.ts';
import { Logger } from '@aws-lambda-powertools/logger';
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sqs } from '../shared/adapters/sqs-client.ts';
import { configureS3 } from '../shared/adapters/s3-client.ts';
import { taskProtectionOf } from '../shared/adapters/ecs-task-protection.ts';
import { s3OutputStore } from '../shared/adapters/output-store.ts';
import { sfnTaskCallbacks } from '../shared/adapters/workflow-client.ts';
import { processEnvironment } from '../shared/config/environment.ts';
import { workerConfigFromEnv } from '../shared/config/worker.ts';
import { systemClock } from '../shared/domain/clock.ts';
import { lostWorkerCounter } from '../shared/adapters/powertools-metrics.ts';
import { phaseLimitsOf } from '../shared/catalog/definition.ts';
import { loadModelCatalog } from '../shared/config/model-catalog.ts';
import { DEFAULT_DOWNLOAD_LIMITS, downloadToFile } from '../shared/adapters/guarded-download.ts';
import { callbackAddress } from './callback-address.ts';
import { CogCallbacks } from './cog-callbacks.ts';
import { cogModelServer } from './model-server.ts';
import { folderRunInputs, leftoverRuns, removeRunFolder, runFolder } from './run-inputs.ts';
import { workJob, type WorkDeps } from '../shared/use-cases/work-job.ts';
import { pollQueue } from './poller.ts';
import { scaleInGuard } from './scale-in-guard.ts';

const environment = processEnvironment();
const config = workerConfigFromEnv(environment);
const catalog = loadModelCatalog(environment);
configureS3({ forcePathStyle: config.s3PathStyle });
const clock = systemClock;

const logger = new Logger({ serviceName: 'prognoz-worker' });
const log = (message: string, fields: Record<string, unknown> = {}) => logger.info(message, fields);
const model = catalog.require(config.modelId);
const limits = phaseLimitsOf(model);
const cogCallbacks = new CogCallbacks();
await cogCallbacks.listen(config.callbackPort, await callbackAddress(config.callbackHost, config.ecsMetadataUri));
const modelServer = cogModelServer(config.modelUrl, cogCallbacks, model);
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

const work: WorkDeps = {
  model,
  store,
  outputs,
  modelServer,
  inputs: folderRunInputs({
    dir: inputsDir,
    model,
    download,
    share: (folder) => cogCallbacks.shareInputs(folder),
  }),
  clock,
  checkMs: Math.min(config.checkMs, model.timeouts.heartbeatSeconds * 1000),
  heartbeatMs: model.timeouts.heartbeatSeconds * 1000,
  ending: { store, notifier, endingTeller, catalog },
  ids: randomUUID,
  countLost: lostWorkerCounter(model.id, (message, fields) => logger.warn(message, fields)),
  protecting: (run) => guard.protecting(run),
  sleep: (ms, signal) => sleep(ms, undefined, { signal }).catch(() => undefined),
  log,
  handBack: handBack.signal,
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
  slots: config.slots ?? model.predictor.concurrency,
  leaseSeconds: limits.leaseSeconds,
  signal: stop.signal,
  log,
  handle: (message, renewLease, setupError, runEnded) =>
    workJob(work, {
      predictionId: message.predictionId,
      // The task token ends the execution: used once, by whoever of this worker ends the prediction.
      stopExecution: (prediction) => callbacks.succeed(message.taskToken, { status: prediction.status }),
      renewLease,
      setupError,
      runEnded,
    }),
});
await cogCallbacks.close();
log('worker stopped');
// Drained: exit 0 (ECS does not restart a worker that exits 0) even if a run given up on is still watched.
process.exit(0);
