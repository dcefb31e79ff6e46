import * as z from 'zod';
import { MAX_WAITER_QUEUE_PREFIX } from '../adapters/waiter-queue-names.ts';
import { DEFAULT_RETENTION_SECONDS } from '../domain/retention.ts';
import { findModel } from '../models/registry.ts';
import { WORKFLOW_NAMES } from '../models/resource-names.ts';

/**
 * A process's environment, its variables by name. On AWS each process has its own (process.env);
 * the local runtime, which hosts many functions in one process, gives each function its own
 * (architecture: Local runtime).
 */
export type Environment = Readonly<Record<string, string | undefined>>;

/** The environment this process was started with: read here, and nowhere else but by the AWS SDK and Powertools. */
export const processEnvironment = (): Environment => process.env;

/** The variables more than one kind of process reads, each named once. */
export const SHARED_ENV = {
  tableName: 'PROGNOZ_TABLE_NAME',
  webhookQueueUrl: 'PROGNOZ_WEBHOOK_QUEUE_URL',
  outputBucket: 'PROGNOZ_OUTPUT_BUCKET',
  /** The ARN of the models' workflows up to the model's part of their names (WORKFLOW_NAMES). */
  stateMachinePrefix: 'PROGNOZ_STATE_MACHINE_PREFIX',
  /** Days a finished prediction (its input and output with it) is kept; the domain's default when unset. */
  retentionDays: 'PROGNOZ_RETENTION_DAYS',
  /** Webhooks and file inputs may go to loopback addresses (the local runtime sets it). */
  allowLoopback: 'PROGNOZ_ALLOW_LOOPBACK',
  /** The names' prefix of the queues synchronous waits are told of their predictions' ends in (WAITER_QUEUE_NAMES). */
  waiterQueuePrefix: 'PROGNOZ_WAITER_QUEUE_PREFIX',
} as const;

const DECIMAL = /^\d+(\.\d+)?$/;

/** How the values of the variables are read. */
export const VALUES = {
  /** A resource's name (a table, a bucket). */
  name: z.string().min(1),
  url: z.url(),
  stateMachinePrefix: z.string().regex(/^arn:[\w-]+:states:[\w-]+:\d{12}:stateMachine:[\w-]*$/),
  /** The waiter queues' prefix: letters, digits, `-` and `_`, with room left for what a name adds. */
  waiterQueuePrefix: z
    .string()
    .regex(/^[\w-]+$/, 'must be letters, digits, `-` or `_`')
    .max(MAX_WAITER_QUEUE_PREFIX),
  /** `true` or `false`, false when unset. */
  flag: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
  /** A number of days, or unset. */
  retentionDays: z.string().regex(DECIMAL, 'must be a number of days').transform(Number).optional(),
  /** A number of zero or more, as text. */
  decimal: z.string().regex(DECIMAL, 'must be a number').transform(Number),
  /** A whole number of zero or more, as text. */
  whole: z.string().regex(/^\d+$/, 'must be a whole number').transform(Number),
} as const;

/** Seconds a finished prediction is kept, from the days configured (DEFAULT_RETENTION_SECONDS when none are). */
export const retentionSecondsOf = (days: number | undefined): number =>
  days === undefined ? DEFAULT_RETENTION_SECONDS : Math.round(days * 86_400);

/**
 * Parses a process's environment once, where it starts; what is missing or malformed is named in
 * the error, with the kind of process whose environment it is.
 */
export const parseEnvironment = <T extends z.ZodObject>(kind: string, schema: T, env: Environment): z.output<T> => {
  const parsed = schema.safeParse(env);
  if (!parsed.success) throw new Error(`the ${kind}'s environment is not valid:\n${z.prettifyError(parsed.error)}`);
  return parsed.data;
};

/** A served model's state machine ARN; undefined for a model the catalog does not serve. */
export type StateMachineArnOf = (model: string) => string | undefined;

/** Model id → state machine ARN, from the ARN prefix the stack tells the functions that start or stop executions. */
export const stateMachineArnOfPrefix =
  (prefix: string): StateMachineArnOf =>
  (model) =>
    findModel(model) !== undefined ? WORKFLOW_NAMES.arnOf(prefix, { id: model }) : undefined;
