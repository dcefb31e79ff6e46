import { defineEnvironment, SHARED, type Environment } from './environment.ts';

/** The environment of the workflow's Finalize function (functions/workflow/finalize.ts). */
export const finalizeEnvironment = defineEnvironment('Finalize function', {
  tableName: SHARED.tableName,
  webhookQueueUrl: SHARED.webhookQueueUrl,
  retentionSeconds: SHARED.retentionSeconds,
});

export const FINALIZE_ENV = finalizeEnvironment.names;

export type FinalizeConfig = ReturnType<typeof finalizeConfigFromEnv>;

export const finalizeConfigFromEnv = (env: Environment) => finalizeEnvironment.parse(env);
