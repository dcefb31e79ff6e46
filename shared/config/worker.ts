import * as z from 'zod';
import { parseEnvironment, retentionSecondsOf, SHARED_ENV, VALUES, type Environment } from './environment.ts';

/** The variables of a model's worker (worker/main.ts). */
export const WORKER_ENV = {
  tableName: SHARED_ENV.tableName,
  webhookQueueUrl: SHARED_ENV.webhookQueueUrl,
  outputBucket: SHARED_ENV.outputBucket,
  retentionDays: SHARED_ENV.retentionDays,
  /** File inputs on loopback addresses may be fetched (the local runtime only). */
  allowLoopback: SHARED_ENV.allowLoopback,
  modelId: 'PROGNOZ_MODEL_ID',
  /** The model's job queue. */
  queueUrl: 'PROGNOZ_QUEUE_URL',
  /** Where the model server (coglet) answers. */
  modelUrl: 'PROGNOZ_MODEL_URL',
  /** The port of this worker coglet sends the runs' webhooks to (0: any free one). */
  callbackPort: 'PROGNOZ_CALLBACK_PORT',
  /** The address coglet reaches the worker at; `auto`: this container's own (an ECS task on Docker's bridge). */
  callbackHost: 'PROGNOZ_CALLBACK_HOST',
  /** Where file inputs are fetched to: a folder the model server sees at the same path. */
  inputsDir: 'PROGNOZ_INPUTS_DIR',
  /** How often a running prediction is checked for a cancel (ms). */
  checkMs: 'PROGNOZ_CHECK_MS',
  /** After SIGTERM, how long running jobs may go on before they are handed back to the queue (s). */
  drainSeconds: 'PROGNOZ_DRAIN_SECONDS',
  /** ECS's own: the agent's endpoint (task scale-in protection goes through it), set in a task. */
  ecsAgentUri: 'ECS_AGENT_URI',
  /** ECS's own: the task metadata endpoint, where the container learns its address. */
  ecsMetadataUri: 'ECS_CONTAINER_METADATA_URI_V4',
} as const;

export const workerEnvironment = z.object({
  [WORKER_ENV.tableName]: VALUES.name,
  [WORKER_ENV.webhookQueueUrl]: VALUES.url,
  [WORKER_ENV.outputBucket]: VALUES.name,
  [WORKER_ENV.retentionDays]: VALUES.retentionDays,
  [WORKER_ENV.allowLoopback]: VALUES.flag,
  [WORKER_ENV.modelId]: VALUES.name,
  [WORKER_ENV.queueUrl]: VALUES.url,
  [WORKER_ENV.modelUrl]: VALUES.url.default('http://127.0.0.1:5000'),
  [WORKER_ENV.callbackPort]: VALUES.whole.pipe(z.number().max(65_535)).default(0),
  [WORKER_ENV.callbackHost]: z.string().min(1).default('127.0.0.1'),
  [WORKER_ENV.inputsDir]: z.string().min(1).optional(),
  [WORKER_ENV.checkMs]: VALUES.whole.pipe(z.number().positive()).default(1000),
  [WORKER_ENV.drainSeconds]: VALUES.decimal.default(100),
  [WORKER_ENV.ecsAgentUri]: VALUES.url.optional(),
  [WORKER_ENV.ecsMetadataUri]: VALUES.url.optional(),
});

export interface WorkerConfig {
  readonly tableName: string;
  readonly webhookQueueUrl: string;
  readonly outputBucket: string;
  readonly retentionSeconds: number;
  readonly allowLoopback: boolean;
  readonly modelId: string;
  readonly queueUrl: string;
  readonly modelUrl: string;
  readonly callbackPort: number;
  readonly callbackHost: string;
  /** Null: a folder of the worker's own under the system's temporary folder. */
  readonly inputsDir: string | null;
  readonly checkMs: number;
  readonly drainSeconds: number;
  readonly ecsAgentUri: string | null;
  readonly ecsMetadataUri: string | null;
}

export const workerConfigFromEnv = (env: Environment): WorkerConfig => {
  const parsed = parseEnvironment('worker', workerEnvironment, env);
  return {
    tableName: parsed[WORKER_ENV.tableName],
    webhookQueueUrl: parsed[WORKER_ENV.webhookQueueUrl],
    outputBucket: parsed[WORKER_ENV.outputBucket],
    retentionSeconds: retentionSecondsOf(parsed[WORKER_ENV.retentionDays]),
    allowLoopback: parsed[WORKER_ENV.allowLoopback],
    modelId: parsed[WORKER_ENV.modelId],
    queueUrl: parsed[WORKER_ENV.queueUrl],
    modelUrl: parsed[WORKER_ENV.modelUrl],
    callbackPort: parsed[WORKER_ENV.callbackPort],
    callbackHost: parsed[WORKER_ENV.callbackHost],
    inputsDir: parsed[WORKER_ENV.inputsDir] ?? null,
    checkMs: parsed[WORKER_ENV.checkMs],
    drainSeconds: parsed[WORKER_ENV.drainSeconds],
    ecsAgentUri: parsed[WORKER_ENV.ecsAgentUri] ?? null,
    ecsMetadataUri: parsed[WORKER_ENV.ecsMetadataUri] ?? null,
  };
};
