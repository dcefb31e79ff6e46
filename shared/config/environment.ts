import * as z from '../zod-mini.ts';
import { MAX_WAITER_QUEUE_PREFIX } from '../adapters/waiter-queue-names.ts';
import { DEFAULT_RETENTION_SECONDS } from '../domain/retention.ts';
import type { ModelCatalog } from '../catalog/model-catalog.ts';
import { WORKFLOW_NAMES } from '../catalog/resource-names.ts';

/**
 * A process's environment, its variables by name. On AWS each process has its own (process.env);
 * the local runtime, which hosts many functions in one process, gives each function its own
 * (architecture: Local runtime).
 */
export type Environment = Readonly<Record<string, string | undefined>>;

/** The environment this process was started with: read here, and nowhere else but by the AWS SDK and Powertools. */
export const processEnvironment = (): Environment => process.env;

const DECIMAL = /^\d+(\.\d+)?$/;

/** How the values of the variables are read. */
export const VALUES = {
  /** A resource's name (a table, a bucket). */
  name: z.string().check(z.minLength(1)),
  url: z.url(),
  stateMachinePrefix: z.string().check(z.regex(/^arn:[\w-]+:states:[\w-]+:\d{12}:stateMachine:[\w-]*$/)),
  /** The waiter queues' prefix: letters, digits, `-` and `_`, with room left for what a name adds. */
  waiterQueuePrefix: z
    .string()
    .check(z.regex(/^[\w-]+$/, 'must be letters, digits, `-` or `_`'), z.maxLength(MAX_WAITER_QUEUE_PREFIX)),
  /** `true` or `false`, false when unset. */
  flag: z.pipe(
    z._default(z.enum(['true', 'false']), 'false'),
    z.transform((value) => value === 'true'),
  ),
  /** A number of days, or unset. */
  retentionDays: z.optional(
    z.pipe(z.string().check(z.regex(DECIMAL, 'must be a number of days')), z.transform(Number)),
  ),
  /** A number of zero or more, as text. */
  decimal: z.pipe(z.string().check(z.regex(DECIMAL, 'must be a number')), z.transform(Number)),
  /** A whole number of zero or more, as text. */
  whole: z.pipe(z.string().check(z.regex(/^\d+$/, 'must be a whole number')), z.transform(Number)),
} as const;

/** `schema`'s value, or null where the variable is unset. */
export const orNull = <S extends z.ZodMiniType>(schema: S) =>
  z.pipe(
    z.optional(schema),
    z.transform((value: z.output<S> | undefined) => value ?? null),
  );

/** Seconds a finished prediction is kept, from the days configured (DEFAULT_RETENTION_SECONDS when none are). */
export const retentionSecondsOf = (days: number | undefined): number =>
  days === undefined ? DEFAULT_RETENTION_SECONDS : Math.round(days * 86_400);

/** One variable of an environment: its name, and how its text is read into the configuration's value. */
export interface Variable<N extends string = string, S extends z.ZodMiniType = z.ZodMiniType> {
  readonly name: N;
  readonly schema: S;
}

export const variable = <const N extends string, S extends z.ZodMiniType>(name: N, schema: S): Variable<N, S> => ({
  name,
  schema,
});

/** The same variable, read on by `to`: for a process that wants its value in another form. */
export const readAs = <N extends string, S extends z.ZodMiniType, T>(
  { name, schema }: Variable<N, S>,
  to: (value: z.output<S>) => T,
) => variable(name, z.pipe(schema, z.transform(to)));

type Variables = Readonly<Record<string, Variable>>;

type NamesOf<V extends Variables> = { readonly [K in keyof V]: V[K]['name'] };

/** The variables' names, by field. */
const namesOf = <V extends Variables>(variables: V): NamesOf<V> =>
  Object.fromEntries(Object.entries(variables).map(([field, { name }]) => [field, name])) as NamesOf<V>;

/** The configuration an environment's variables make: a field for each. */
type ConfigOf<V extends Variables> = { readonly [K in keyof V]: z.output<V[K]['schema']> };

/**
 * A kind of process's environment, from its variables, each declared once by the field of the
 * configuration it makes: their names (which the stack sets), the schema of the environment (by
 * those names, which its errors tell) and its parse into the configuration, where the process
 * starts; `kind` names the process in the errors.
 */
export const defineEnvironment = <V extends Variables>(kind: string, variables: V) => {
  const schema = z.object(
    Object.fromEntries(Object.values(variables).map(({ name, schema }) => [name, schema])),
  ) as z.ZodMiniObject<{ -readonly [K in keyof V as V[K]['name']]: V[K]['schema'] }>;
  const parse = (env: Environment): ConfigOf<V> => {
    const parsed: Readonly<Record<string, unknown>> = parseEnvironment(kind, schema, env);
    return Object.fromEntries(
      Object.entries(variables).map(([field, { name }]) => [field, parsed[name]]),
    ) as ConfigOf<V>;
  };
  return { names: namesOf(variables), schema, parse };
};

/** The variables more than one kind of process reads, each declared once. */
export const SHARED = {
  tableName: variable('PROGNOZ_TABLE_NAME', VALUES.name),
  webhookQueueUrl: variable('PROGNOZ_WEBHOOK_QUEUE_URL', VALUES.url),
  outputBucket: variable('PROGNOZ_OUTPUT_BUCKET', VALUES.name),
  /** The ARN of the models' workflows up to the model's part of their names (WORKFLOW_NAMES). */
  stateMachinePrefix: variable('PROGNOZ_STATE_MACHINE_PREFIX', VALUES.stateMachinePrefix),
  /**
   * How long predictions (their inputs and outputs with them) and uploaded files are kept, given in
   * days; the domain's default when unset.
   */
  retentionSeconds: variable('PROGNOZ_RETENTION_DAYS', z.pipe(VALUES.retentionDays, z.transform(retentionSecondsOf))),
  /** Webhooks and file inputs may go to loopback addresses (the local runtime sets it). */
  allowLoopback: variable('PROGNOZ_ALLOW_LOOPBACK', VALUES.flag),
  /** The names' prefix of the queues synchronous waits are told of their predictions' ends in (WAITER_QUEUE_NAMES). */
  waiterQueuePrefix: variable('PROGNOZ_WAITER_QUEUE_PREFIX', VALUES.waiterQueuePrefix),
} as const;

export const SHARED_ENV = namesOf(SHARED);

/**
 * Parses a process's environment once, where it starts; what is missing or malformed is named in
 * the error, with the kind of process whose environment it is.
 */
export const parseEnvironment = <T extends z.ZodMiniObject>(kind: string, schema: T, env: Environment): z.output<T> => {
  const parsed = schema.safeParse(env);
  if (!parsed.success) throw new Error(`the ${kind}'s environment is not valid:\n${z.prettifyError(parsed.error)}`);
  return parsed.data;
};

/** A served model's state machine ARN; undefined for a model the catalog does not serve. */
export type StateMachineArnOf = (model: string) => string | undefined;

/**
 * Model id → state machine ARN, from the ARN prefix the stack tells the functions that start or
 * stop executions; for the models `catalog` serves.
 */
export const stateMachineArnOfPrefix =
  (prefix: string, catalog: Pick<ModelCatalog, 'find'>): StateMachineArnOf =>
  (model) =>
    catalog.find(model) !== undefined ? WORKFLOW_NAMES.arnOf(prefix, { id: model }) : undefined;

/** A configuration with its state machine prefix made into the ARN of each model `catalog` serves. */
export const withStateMachineArnOf = <C extends { readonly stateMachinePrefix: string }>(
  { stateMachinePrefix, ...config }: C,
  catalog: Pick<ModelCatalog, 'find'>,
): Omit<C, 'stateMachinePrefix'> & { readonly stateMachineArnOf: StateMachineArnOf } => ({
  ...config,
  stateMachineArnOf: stateMachineArnOfPrefix(stateMachinePrefix, catalog),
});
