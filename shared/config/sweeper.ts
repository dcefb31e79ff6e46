import * as z from 'zod';
import {
  parseEnvironment,
  retentionSecondsOf,
  SHARED_ENV,
  stateMachineArnOfPrefix,
  VALUES,
  type Environment,
  type StateMachineArnOf,
} from './environment.ts';

/** The variables of the sweeper (functions/sweeper/sweep.ts). */
export const SWEEPER_ENV = {
  tableName: SHARED_ENV.tableName,
  webhookQueueUrl: SHARED_ENV.webhookQueueUrl,
  stateMachinePrefix: SHARED_ENV.stateMachinePrefix,
  retentionDays: SHARED_ENV.retentionDays,
  waiterQueuePrefix: SHARED_ENV.waiterQueuePrefix,
  /**
   * The Parameter Store path under which each fleet it wakes has a parameter (shared/fleet-config.ts).
   * A path, not the fleets themselves: a fleet's queue URL, cluster and service take some 350
   * characters, and Lambda allows a function 4 KB of environment in all. Set on AWS only
   * (infra/constructs/sweeper.ts): the local runtime leaves it out, for its workers always run.
   */
  fleetsPath: 'PROGNOZ_FLEETS',
} as const;

export const sweeperEnvironment = z.object({
  [SWEEPER_ENV.tableName]: VALUES.name,
  [SWEEPER_ENV.webhookQueueUrl]: VALUES.url,
  [SWEEPER_ENV.stateMachinePrefix]: VALUES.stateMachinePrefix,
  [SWEEPER_ENV.retentionDays]: VALUES.retentionDays,
  [SWEEPER_ENV.waiterQueuePrefix]: VALUES.waiterQueuePrefix,
  [SWEEPER_ENV.fleetsPath]: z
    .string()
    .regex(/^(\/[\w.-]+)+$/, 'must be a Parameter Store path, such as /Prognoz/fleets')
    .optional(),
});

export interface SweeperConfig {
  readonly tableName: string;
  readonly webhookQueueUrl: string;
  readonly stateMachineArnOf: StateMachineArnOf;
  readonly retentionSeconds: number;
  /** The names' prefix of the waiter queues, which it removes once old. */
  readonly waiterQueuePrefix: string;
  /** The path of the fleets it wakes; null where none is set (the local runtime). */
  readonly fleetsPath: string | null;
}

export const sweeperConfigFromEnv = (env: Environment): SweeperConfig => {
  const parsed = parseEnvironment('sweeper', sweeperEnvironment, env);
  return {
    tableName: parsed[SWEEPER_ENV.tableName],
    webhookQueueUrl: parsed[SWEEPER_ENV.webhookQueueUrl],
    stateMachineArnOf: stateMachineArnOfPrefix(parsed[SWEEPER_ENV.stateMachinePrefix]),
    retentionSeconds: retentionSecondsOf(parsed[SWEEPER_ENV.retentionDays]),
    waiterQueuePrefix: parsed[SWEEPER_ENV.waiterQueuePrefix],
    fleetsPath: parsed[SWEEPER_ENV.fleetsPath] ?? null,
  };
};
