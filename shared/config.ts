import { z } from 'zod';
import { WORKFLOW_NAMES } from './models/definition.ts';
import { findModel } from './models/registry.ts';

/** Settings the handlers read from their environment, parsed once at the trust boundary. */
const apiEnv = z.object({
  PROGNOZ_TABLE_NAME: z.string().min(1),
  PROGNOZ_WEBHOOK_QUEUE_URL: z.string().min(1),
  PROGNOZ_OUTPUT_BUCKET: z.string().min(1),
  /** The ARN of the models' workflows up to the model's part of their names (WORKFLOW_NAMES). */
  PROGNOZ_STATE_MACHINE_PREFIX: z.string().regex(/^arn:[\w-]+:states:[\w-]+:\d{12}:stateMachine:[\w-]*$/),
});

/** A served model's state machine ARN; undefined for a model the catalog does not serve. */
export type StateMachineArnOf = (model: string) => string | undefined;

const stateMachineArnOfPrefix =
  (prefix: string): StateMachineArnOf =>
  (model) =>
    findModel(model) !== undefined ? WORKFLOW_NAMES.nameOf(prefix, { id: model }) : undefined;

export type ApiConfig = {
  tableName: string;
  stateMachineArnOf: StateMachineArnOf;
  webhookQueueUrl: string;
  outputBucket: string;
};

export const apiConfigFromEnv = (env: NodeJS.ProcessEnv = process.env): ApiConfig => {
  const parsed = apiEnv.parse(env);
  return {
    tableName: parsed.PROGNOZ_TABLE_NAME,
    stateMachineArnOf: stateMachineArnOfPrefix(parsed.PROGNOZ_STATE_MACHINE_PREFIX),
    webhookQueueUrl: parsed.PROGNOZ_WEBHOOK_QUEUE_URL,
    outputBucket: parsed.PROGNOZ_OUTPUT_BUCKET,
  };
};

export const tableNameFromEnv = (env: NodeJS.ProcessEnv = process.env): string =>
  z.string().min(1).parse(env.PROGNOZ_TABLE_NAME);

/** The outputs bucket's name, as the stack (or the local runtime) sets it. */
export const outputBucketFromEnv = (env: NodeJS.ProcessEnv = process.env): string =>
  z.string().min(1).parse(env.PROGNOZ_OUTPUT_BUCKET);

export const webhookQueueUrlFromEnv = (env: NodeJS.ProcessEnv = process.env): string =>
  z.string().min(1).parse(env.PROGNOZ_WEBHOOK_QUEUE_URL);

/** Model id → state machine ARN, as the stack tells the functions that start or stop executions. */
export const stateMachinesFromEnv = (env: NodeJS.ProcessEnv = process.env): StateMachineArnOf =>
  stateMachineArnOfPrefix(apiEnv.shape.PROGNOZ_STATE_MACHINE_PREFIX.parse(env.PROGNOZ_STATE_MACHINE_PREFIX));

/** Where the authorizer learns which Cognito tokens are owners': the owners' user pool (its issuer) and the console's app client. */
export const OWNER_SIGN_IN_ENV = { issuer: 'PROGNOZ_OWNER_ISSUER', clientId: 'PROGNOZ_OWNER_CLIENT_ID' } as const;

export interface OwnerSignInConfig {
  readonly issuer: string;
  /** The owners' user pool: the issuer's last segment. */
  readonly poolId: string;
  readonly clientId: string;
  /** Where the pool's signing keys are published. */
  readonly jwksUri: string;
}

/**
 * How owners' tokens are verified; null where no owners' pool is configured. The keys are the
 * pool's own on AWS; where a Cognito endpoint is configured (the local runtime's emulator), they
 * are served there, as every other service is reached at its configured endpoint.
 */
export const ownerSignInFromEnv = (env: NodeJS.ProcessEnv = process.env): OwnerSignInConfig | null => {
  const issuer = env[OWNER_SIGN_IN_ENV.issuer];
  const clientId = env[OWNER_SIGN_IN_ENV.clientId];
  if (!issuer || !clientId) return null;
  const poolId = issuer.slice(issuer.lastIndexOf('/') + 1);
  const endpoint = env.AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER?.replace(/\/+$/, '');
  return {
    issuer,
    poolId,
    clientId,
    jwksUri: endpoint ? `${endpoint}/${poolId}/.well-known/jwks.json` : `${issuer}/.well-known/jwks.json`,
  };
};
