import { z } from 'zod';

/** Settings the handlers read from their environment, parsed once at the trust boundary. */
const apiEnv = z.object({
  PROGNOZ_TABLE_NAME: z.string().min(1),
  PROGNOZ_WEBHOOK_QUEUE_URL: z.string().min(1),
  PROGNOZ_OUTPUT_BUCKET: z.string().min(1),
  /** JSON object: model id → state machine ARN. */
  PROGNOZ_STATE_MACHINES: z.string().transform((raw, ctx) => {
    try {
      return z.record(z.string(), z.string()).parse(JSON.parse(raw));
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be a JSON object of model id → state machine ARN' });
      return z.NEVER;
    }
  }),
});

export type ApiConfig = {
  tableName: string;
  stateMachines: Readonly<Record<string, string>>;
  webhookQueueUrl: string;
  outputBucket: string;
};

export const apiConfigFromEnv = (env: NodeJS.ProcessEnv = process.env): ApiConfig => {
  const parsed = apiEnv.parse(env);
  return {
    tableName: parsed.PROGNOZ_TABLE_NAME,
    stateMachines: parsed.PROGNOZ_STATE_MACHINES,
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

/** Model id → state machine ARN, as the stack passes it to the functions that start or stop executions. */
export const stateMachinesFromEnv = (env: NodeJS.ProcessEnv = process.env): Readonly<Record<string, string>> =>
  apiEnv.shape.PROGNOZ_STATE_MACHINES.parse(env.PROGNOZ_STATE_MACHINES);

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
