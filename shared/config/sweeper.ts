import * as z from '../zod-mini.ts';
import type { ModelCatalog } from '../catalog/model-catalog.ts';
import { defineEnvironment, orNull, SHARED, variable, withStateMachineArnOf, type Environment } from './environment.ts';

/** The environment of the sweeper (functions/sweeper/sweep.ts). */
export const sweeperEnvironment = defineEnvironment('sweeper', {
  tableName: SHARED.tableName,
  webhookQueueUrl: SHARED.webhookQueueUrl,
  stateMachinePrefix: SHARED.stateMachinePrefix,
  retentionSeconds: SHARED.retentionSeconds,
  /** The names' prefix of the waiter queues, which it removes once old. */
  waiterQueuePrefix: SHARED.waiterQueuePrefix,
  /**
   * The Parameter Store path under which each fleet it wakes has a parameter (shared/fleet-config.ts).
   * A path, not the fleets themselves: a fleet's queue URL, cluster and service take some 350
   * characters, and Lambda allows a function 4 KB of environment in all. Set on AWS only
   * (infra/constructs/sweeper.ts): the local runtime leaves it out, for its workers always run (null).
   */
  fleetsPath: variable(
    'PROGNOZ_FLEETS',
    orNull(z.string().check(z.regex(/^(\/[\w.-]+)+$/, 'must be a Parameter Store path, such as /Prognoz/fleets'))),
  ),
});

export const SWEEPER_ENV = sweeperEnvironment.names;

export type SweeperConfig = ReturnType<typeof sweeperConfigFromEnv>;

export const sweeperConfigFromEnv = (env: Environment, catalog: Pick<ModelCatalog, 'find'>) =>
  withStateMachineArnOf(sweeperEnvironment.parse(env), catalog);
