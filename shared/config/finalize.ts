import * as z from 'zod';
import { parseEnvironment, retentionSecondsOf, SHARED_ENV, VALUES, type Environment } from './environment.ts';

/** The variables of the workflow's Finalize function (functions/workflow/finalize.ts). */
export const FINALIZE_ENV = {
  tableName: SHARED_ENV.tableName,
  webhookQueueUrl: SHARED_ENV.webhookQueueUrl,
  retentionDays: SHARED_ENV.retentionDays,
} as const;

export const finalizeEnvironment = z.object({
  [FINALIZE_ENV.tableName]: VALUES.name,
  [FINALIZE_ENV.webhookQueueUrl]: VALUES.url,
  [FINALIZE_ENV.retentionDays]: VALUES.retentionDays,
});

export interface FinalizeConfig {
  readonly tableName: string;
  readonly webhookQueueUrl: string;
  readonly retentionSeconds: number;
}

export const finalizeConfigFromEnv = (env: Environment): FinalizeConfig => {
  const parsed = parseEnvironment('Finalize function', finalizeEnvironment, env);
  return {
    tableName: parsed[FINALIZE_ENV.tableName],
    webhookQueueUrl: parsed[FINALIZE_ENV.webhookQueueUrl],
    retentionSeconds: retentionSecondsOf(parsed[FINALIZE_ENV.retentionDays]),
  };
};
