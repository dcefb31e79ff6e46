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

export type ApiConfig = { tableName: string; stateMachines: Readonly<Record<string, string>>; webhookQueueUrl: string; outputBucket: string };

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
export const outputBucketFromEnv = (env: NodeJS.ProcessEnv = process.env): string => z.string().min(1).parse(env.PROGNOZ_OUTPUT_BUCKET);

export const webhookQueueUrlFromEnv = (env: NodeJS.ProcessEnv = process.env): string => z.string().min(1).parse(env.PROGNOZ_WEBHOOK_QUEUE_URL);

/** Model id → state machine ARN, as the stack passes it to the functions that start or stop executions. */
export const stateMachinesFromEnv = (env: NodeJS.ProcessEnv = process.env): Readonly<Record<string, string>> =>
  apiEnv.shape.PROGNOZ_STATE_MACHINES.parse(env.PROGNOZ_STATE_MACHINES);
