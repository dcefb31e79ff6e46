import * as z from 'zod';
import type { AddressPolicy } from '../domain/addresses.ts';
import {
  parseEnvironment,
  retentionSecondsOf,
  SHARED_ENV,
  stateMachineArnOfPrefix,
  VALUES,
  type Environment,
  type StateMachineArnOf,
} from './environment.ts';

/** The variables of the API's route functions (functions/http). */
export const API_ENV = {
  tableName: SHARED_ENV.tableName,
  webhookQueueUrl: SHARED_ENV.webhookQueueUrl,
  outputBucket: SHARED_ENV.outputBucket,
  stateMachinePrefix: SHARED_ENV.stateMachinePrefix,
  retentionDays: SHARED_ENV.retentionDays,
  allowLoopback: SHARED_ENV.allowLoopback,
  waiterQueuePrefix: SHARED_ENV.waiterQueuePrefix,
  /** Requests a second per token unless the account has its own rate (the account as a whole gets twice that). */
  ratePerSecond: 'PROGNOZ_RATE_LIMIT_PER_SECOND',
  /** The start of every fleet's cluster name (`fleetClusterName`): given to the routes that read deployments. */
  fleetClusterPrefix: 'PROGNOZ_FLEET_CLUSTER_PREFIX',
} as const;

/** The default request rate per token. */
const DEFAULT_RATE_PER_SECOND = 100;

export const apiEnvironment = z.object({
  [API_ENV.tableName]: VALUES.name,
  [API_ENV.webhookQueueUrl]: VALUES.url,
  [API_ENV.outputBucket]: VALUES.name,
  [API_ENV.stateMachinePrefix]: VALUES.stateMachinePrefix,
  [API_ENV.retentionDays]: VALUES.retentionDays,
  [API_ENV.allowLoopback]: VALUES.flag,
  [API_ENV.waiterQueuePrefix]: VALUES.waiterQueuePrefix,
  [API_ENV.ratePerSecond]: VALUES.decimal.pipe(z.number().positive()).default(DEFAULT_RATE_PER_SECOND),
  [API_ENV.fleetClusterPrefix]: VALUES.name.optional(),
});

export interface ApiConfig {
  readonly tableName: string;
  readonly webhookQueueUrl: string;
  readonly outputBucket: string;
  readonly stateMachineArnOf: StateMachineArnOf;
  /** How long predictions and uploaded files are kept. */
  readonly retentionSeconds: number;
  /** Which addresses webhooks and file inputs may name. */
  readonly addressPolicy: AddressPolicy;
  readonly ratePerSecond: number;
  /** The names' prefix of the queue a synchronous create waits on (architecture: Synchronous waits). */
  readonly waiterQueuePrefix: string;
  /** The start of the fleets' cluster names; null for a route that reads no fleet. */
  readonly fleetClusterPrefix: string | null;
}

export const apiConfigFromEnv = (env: Environment): ApiConfig => {
  const parsed = parseEnvironment('API function', apiEnvironment, env);
  return {
    tableName: parsed[API_ENV.tableName],
    webhookQueueUrl: parsed[API_ENV.webhookQueueUrl],
    outputBucket: parsed[API_ENV.outputBucket],
    stateMachineArnOf: stateMachineArnOfPrefix(parsed[API_ENV.stateMachinePrefix]),
    retentionSeconds: retentionSecondsOf(parsed[API_ENV.retentionDays]),
    addressPolicy: { allowLoopback: parsed[API_ENV.allowLoopback] },
    ratePerSecond: parsed[API_ENV.ratePerSecond],
    waiterQueuePrefix: parsed[API_ENV.waiterQueuePrefix],
    fleetClusterPrefix: parsed[API_ENV.fleetClusterPrefix] ?? null,
  };
};
