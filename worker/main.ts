import { Logger } from '@aws-lambda-powertools/logger';
import { z } from 'zod';
import { sqs } from '../shared/adapters/aws-clients.ts';
import { dynamoPredictionStore } from '../shared/adapters/prediction-store.ts';
import { sfnTaskCallbacks } from '../shared/adapters/workflow-client.ts';
import { systemClock } from '../shared/domain/clock.ts';
import { requireModel } from '../shared/models/registry.ts';
import { httpModelClient } from './model-client.ts';
import { pollQueue } from './poller.ts';
import { runJob } from './run-job.ts';

const env = z
  .object({
    PROGNOZ_TABLE_NAME: z.string().min(1),
    PROGNOZ_MODEL_ID: z.string().min(1),
    PROGNOZ_QUEUE_URL: z.url(),
    PROGNOZ_MODEL_URL: z.url().default('http://127.0.0.1:5000'),
    PROGNOZ_HEARTBEAT_MS: z.coerce.number().int().positive().optional(),
  })
  .parse(process.env);

const logger = new Logger({ serviceName: 'prognoz-worker' });
const log = (message: string, fields: Record<string, unknown> = {}) => logger.info(message, fields);
const model = requireModel(env.PROGNOZ_MODEL_ID);
const modelServer = httpModelClient(env.PROGNOZ_MODEL_URL);
const store = dynamoPredictionStore(env.PROGNOZ_TABLE_NAME);
const callbacks = sfnTaskCallbacks();
// Heartbeat often: a cancel reaches the model at the next beat, and beats are not billed.
const heartbeatMs = env.PROGNOZ_HEARTBEAT_MS ?? Math.min(1000, (model.timeouts.heartbeatSeconds * 1000) / 4);

const stop = new AbortController();
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    log('stopping: no new jobs; the running one finishes', { signal });
    stop.abort();
  });
}

log('worker started', { model: model.id, queue: env.PROGNOZ_QUEUE_URL, modelServer: env.PROGNOZ_MODEL_URL });
await pollQueue({
  sqs: sqs(),
  queueUrl: env.PROGNOZ_QUEUE_URL,
  modelServer,
  visibilitySeconds: Math.max(30, model.timeouts.heartbeatSeconds * 3),
  signal: stop.signal,
  log,
  handle: (message, extendVisibility) =>
    runJob({ model, store, callbacks, modelServer, clock: systemClock, heartbeatMs, extendVisibility, log }, message),
});
log('worker stopped');
