import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { sqs } from '../shared/adapters/aws-clients.ts';
import { s3OutputStore } from '../shared/adapters/output-store.ts';
import { dynamoPredictionStore } from '../shared/adapters/prediction-store.ts';
import { sqsWebhookNotifier } from '../shared/adapters/webhook-queue.ts';
import { sfnTaskCallbacks } from '../shared/adapters/workflow-client.ts';
import { systemClock } from '../shared/domain/clock.ts';
import type { PredictionId } from '../shared/domain/ids.ts';
import { METRICS_NAMESPACE } from '../shared/metrics.ts';
import { phaseLimitsOf, requireModel } from '../shared/models/registry.ts';
import type { EffectDeps } from '../shared/use-cases/end-prediction.ts';
import type { DispatchMessage } from '../shared/workflow/messages.ts';
import { httpModelClient } from './model-client.ts';
import { pollQueue, type Disposition } from './poller.ts';
import { runClaimed } from './run-job.ts';
import { takeJob } from './take-job.ts';

const env = z
  .object({
    PROGNOZ_TABLE_NAME: z.string().min(1),
    PROGNOZ_MODEL_ID: z.string().min(1),
    PROGNOZ_QUEUE_URL: z.url(),
    PROGNOZ_WEBHOOK_QUEUE_URL: z.url(),
    PROGNOZ_OUTPUT_BUCKET: z.string().min(1),
    PROGNOZ_MODEL_URL: z.url().default('http://127.0.0.1:5000'),
    /** How often a running prediction is checked for a cancel (ms). */
    PROGNOZ_CHECK_MS: z.coerce.number().int().positive().default(1000),
  })
  .parse(process.env);

const logger = new Logger({ serviceName: 'prognoz-worker' });
const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: 'prognoz-worker' });
const log = (message: string, fields: Record<string, unknown> = {}) => logger.info(message, fields);
const model = requireModel(env.PROGNOZ_MODEL_ID);
const limits = phaseLimitsOf(model);
const modelServer = httpModelClient(env.PROGNOZ_MODEL_URL);
const store = dynamoPredictionStore(env.PROGNOZ_TABLE_NAME);
const outputs = s3OutputStore(env.PROGNOZ_OUTPUT_BUCKET);
const notifier = sqsWebhookNotifier(env.PROGNOZ_WEBHOOK_QUEUE_URL);
const callbacks = sfnTaskCallbacks();

const stop = new AbortController();
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    log('stopping: no new jobs; the running one finishes', { signal });
    stop.abort();
  });
}

/** One job: claim it (or see why not), run it, and say what becomes of its message. */
const handle = async (message: DispatchMessage, renewLease: () => Promise<void>): Promise<Disposition> => {
  // The task token ends the execution: used once, by whoever of this worker ends the prediction.
  const effects: EffectDeps = { store, notifier, stopExecution: (prediction) => callbacks.succeed(message.taskToken, { status: prediction.status }) };
  const id = message.predictionId as PredictionId;
  const taken = await takeJob(
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
  const outcome = await runClaimed(
    {
      model,
      store,
      outputs,
      modelServer,
      clock: systemClock,
      checkMs: Math.min(env.PROGNOZ_CHECK_MS, model.timeouts.heartbeatSeconds * 1000),
      heartbeatMs: model.timeouts.heartbeatSeconds * 1000,
      renewLease,
      effects,
      sleep: (ms) => sleep(ms),
      log,
    },
    taken.prediction,
  );
  log('run over', { predictionId: id, outcome });
  // Requeued: back to the queue at once, for the next worker whose model server is up.
  return outcome === 'requeued' ? { kind: 'return', afterSeconds: 0 } : { kind: 'delete' };
};

log('worker started', { model: model.id, queue: env.PROGNOZ_QUEUE_URL, modelServer: env.PROGNOZ_MODEL_URL, leaseSeconds: limits.leaseSeconds });
await pollQueue({ sqs: sqs(), queueUrl: env.PROGNOZ_QUEUE_URL, modelServer, leaseSeconds: limits.leaseSeconds, signal: stop.signal, log, handle });
log('worker stopped');
