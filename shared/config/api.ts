import * as z from '../zod-mini.ts';
import type { AddressPolicy } from '../domain/addresses.ts';
import type { ModelCatalog } from '../catalog/model-catalog.ts';
import {
  defineEnvironment,
  orNull,
  readAs,
  SHARED,
  variable,
  VALUES,
  withStateMachineArnOf,
  type Environment,
} from './environment.ts';

/** The default request rate per token. */
const DEFAULT_RATE_PER_SECOND = 100;

/** The environment of the API's route functions (functions/http). */
export const apiEnvironment = defineEnvironment('API function', {
  tableName: SHARED.tableName,
  webhookQueueUrl: SHARED.webhookQueueUrl,
  outputBucket: SHARED.outputBucket,
  stateMachinePrefix: SHARED.stateMachinePrefix,
  retentionSeconds: SHARED.retentionSeconds,
  /** Which addresses webhooks and file inputs may name. */
  addressPolicy: readAs(SHARED.allowLoopback, (allowLoopback): AddressPolicy => ({ allowLoopback })),
  /** The names' prefix of the queue a synchronous create waits on (architecture: Synchronous waits). */
  waiterQueuePrefix: SHARED.waiterQueuePrefix,
  /** Requests a second per token unless the account has its own rate (the account as a whole gets twice that). */
  ratePerSecond: variable(
    'PROGNOZ_RATE_LIMIT_PER_SECOND',
    z._default(z.pipe(VALUES.decimal, z.number().check(z.positive())), DEFAULT_RATE_PER_SECOND),
  ),
  /**
   * The start of every fleet's cluster name (`fleetClusterName`): given to the routes that read
   * deployments, null for the others.
   */
  fleetClusterPrefix: variable('PROGNOZ_FLEET_CLUSTER_PREFIX', orNull(VALUES.name)),
});

export const API_ENV = apiEnvironment.names;

export type ApiConfig = ReturnType<typeof apiConfigFromEnv>;

export const apiConfigFromEnv = (env: Environment, catalog: Pick<ModelCatalog, 'find'>) =>
  withStateMachineArnOf(apiEnvironment.parse(env), catalog);
