import * as z from '../zod-mini.ts';
import { defineEnvironment, orNull, SHARED, variable, VALUES, type Environment } from './environment.ts';

/** The environment of a model's worker (worker/main.ts). */
export const workerEnvironment = defineEnvironment('worker', {
  tableName: SHARED.tableName,
  webhookQueueUrl: SHARED.webhookQueueUrl,
  outputBucket: SHARED.outputBucket,
  retentionSeconds: SHARED.retentionSeconds,
  /** File inputs on loopback addresses may be fetched (the local runtime only). */
  allowLoopback: SHARED.allowLoopback,
  modelId: variable('PROGNOZ_MODEL_ID', VALUES.name),
  /** The model's job queue. */
  queueUrl: variable('PROGNOZ_QUEUE_URL', VALUES.url),
  /** Where the model server (coglet) answers. */
  modelUrl: variable('PROGNOZ_MODEL_URL', z._default(VALUES.url, 'http://127.0.0.1:5000')),
  /** The port of this worker coglet sends the runs' webhooks to (0: any free one). */
  callbackPort: variable(
    'PROGNOZ_CALLBACK_PORT',
    z._default(z.pipe(VALUES.whole, z.number().check(z.maximum(65_535))), 0),
  ),
  /** The address coglet reaches the worker at; `auto`: this container's own (an ECS task on Docker's bridge). */
  callbackHost: variable('PROGNOZ_CALLBACK_HOST', z._default(VALUES.name, '127.0.0.1')),
  /**
   * Where file inputs are fetched to: a folder the model server sees at the same path; null: a
   * folder of the worker's own under the system's temporary folder.
   */
  inputsDir: variable('PROGNOZ_INPUTS_DIR', orNull(VALUES.name)),
  /**
   * Predictions the model server takes at once when it is not what its predictor says: a local run
   * of a GPU predictor on a machine without one (local/model-machine.ts). null: the predictor's.
   */
  slots: variable('PROGNOZ_MODEL_SLOTS', orNull(z.pipe(VALUES.whole, z.number().check(z.minimum(1))))),
  /** How often a running prediction is checked for a cancel (ms). */
  checkMs: variable('PROGNOZ_CHECK_MS', z._default(z.pipe(VALUES.whole, z.number().check(z.positive())), 1000)),
  /** After SIGTERM, how long running jobs may go on before they are handed back to the queue (s). */
  drainSeconds: variable('PROGNOZ_DRAIN_SECONDS', z._default(VALUES.decimal, 100)),
  /**
   * S3's buckets are addressed by path, not by host name: the local runtime's emulator serves
   * them all on one host and port. Unset on AWS.
   */
  s3PathStyle: variable('PROGNOZ_S3_PATH_STYLE', VALUES.flag),
  /** ECS's own: the agent's endpoint (task scale-in protection goes through it), set in a task. */
  ecsAgentUri: variable('ECS_AGENT_URI', orNull(VALUES.url)),
  /** ECS's own: the task metadata endpoint, where the container learns its address. */
  ecsMetadataUri: variable('ECS_CONTAINER_METADATA_URI_V4', orNull(VALUES.url)),
});

export const WORKER_ENV = workerEnvironment.names;

export type WorkerConfig = ReturnType<typeof workerConfigFromEnv>;

export const workerConfigFromEnv = (env: Environment) => workerEnvironment.parse(env);
