import { endingWiring } from '../../shared/adapters/ending-wiring.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { dynamoAccountStore } from '../../shared/adapters/account-store.ts';
import { dynamo } from '../../shared/adapters/aws-clients.ts';
import { type AccountStore } from '../../shared/ports/account-store.ts';
import { dynamoDeliveryLog } from '../../shared/adapters/delivery-log.ts';
import { sqsEndingInbox } from '../../shared/adapters/ending-notices.ts';
import type { EndingInbox, EndingTeller } from '../../shared/ports/ending-notices.ts';
import { type DeliveryLog } from '../../shared/ports/delivery-log.ts';
import { s3DynamoFileStore } from '../../shared/adapters/file-store.ts';
import { type FileStore } from '../../shared/ports/file-store.ts';
import { s3OutputReader } from '../../shared/adapters/output-store-reader.ts';
import { type OutputReader } from '../../shared/ports/output-store.ts';
import { type PredictionStore } from '../../shared/ports/prediction-store.ts';
import { checkWebhookHost } from '../../shared/adapters/webhook-poster.ts';
import { instanceRateLimiter } from '../../shared/adapters/instance-rate-limiter.ts';
import { dynamoRateWindows } from '../../shared/adapters/rate-limiter.ts';
import { type RateLimiter } from '../../shared/ports/rate-limiter.ts';
import { dynamoRequestLog } from '../../shared/adapters/request-log.ts';
import { type RequestLog } from '../../shared/ports/request-log.ts';
import type { AddressPolicy } from '../../shared/domain/addresses.ts';
import { type WebhookNotifier } from '../../shared/ports/webhook-notifier.ts';
import { sfnWorkflowClient } from '../../shared/adapters/workflow-client.ts';
import { type WorkflowClient } from '../../shared/ports/workflow-client.ts';
import type { Clock } from '../../shared/domain/clock.ts';
import type { InputStore } from '../../shared/ports/input-store.ts';
import { s3InputStore } from '../../shared/adapters/input-store.ts';
import { randomIds, type IdGenerator } from '../../shared/domain/ids.ts';
import type { ApiConfig } from '../../shared/config/api.ts';
import { logger } from './logger.ts';
import { clusterOfModel } from '../../shared/fleet-config.ts';
import { awsFleetScaling } from '../../shared/adapters/fleet-scaling.ts';
import type { ModelDefinition } from '../../shared/catalog/definition.ts';
import type { ModelCatalog } from '../../shared/catalog/model-catalog.ts';
import type { FleetScaling } from '../../shared/ports/fleet-scaling.ts';
import { dynamoDeploymentLog } from '../../shared/adapters/deployment-log.ts';
import type { DeploymentLog } from '../../shared/ports/deployment-log.ts';
import { monthlyLimitsKept, type MonthlyLimits } from '../../shared/use-cases/monthly-limits.ts';
import { dynamoModelExamples } from '../../shared/adapters/model-examples.ts';
import type { ModelExamples } from '../../shared/ports/model-examples.ts';

/** What the API handlers need, built once per function from its configuration. */
export interface ApiDeps {
  /** The models this deployment knows, and those it serves. */
  readonly catalog: ModelCatalog;
  readonly store: PredictionStore;
  readonly outputs: OutputReader;
  /** Where a create keeps a large input (the outputs bucket); it is read back through `outputs`. */
  readonly inputs: InputStore;
  /** Uploaded files (POST /files), kept as long as predictions are: `retentionSeconds`. */
  readonly files: FileStore;
  readonly retentionSeconds: number;
  readonly workflow: WorkflowClient;
  readonly stateMachineArnOf: (model: string) => string | undefined;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  /** Resolves after `ms`, or at once when `signal` aborts. */
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly addressPolicy: AddressPolicy;
  readonly notifier: WebhookNotifier;
  /** This process's inbox for the ends of the predictions it waits for (a synchronous create); made at its first use. */
  readonly endingInbox: EndingInbox;
  /** Tells a waiting request that its prediction ended (a cancel). */
  readonly endingTeller: EndingTeller;
  readonly accounts: AccountStore;
  /** The accounts' monthly limits as this instance last read them (a create checks them in its write). */
  readonly monthlyLimits: MonthlyLimits;
  readonly deliveries: DeliveryLog;
  /** Why a webhook's host may not be called, or null (resolves it). */
  readonly checkWebhookHost: (url: string) => Promise<string | null>;
  readonly rateLimiter: RateLimiter;
  readonly requestLog: RequestLog;
  /** Requests a second per token unless the account has its own rate. */
  readonly ratePerSecond: number;
  /** The models' fleets (the adapter loads their SDK at its first use: only the deployments routes read them). */
  readonly fleets: FleetScaling;
  /** Who changed the deployments' bounds, when, from what, to what. */
  readonly deploymentLog: DeploymentLog;
  /** A model's fleet cluster; null for a route that reads no fleet. */
  readonly fleetClusterOf: ((model: Pick<ModelDefinition, 'id'>) => string) | null;
  /** The predictions operators show on their models' pages. */
  readonly examples: ModelExamples;
}

/** The API's adapters, wired to the function's resources, to `clock` and to the process's `catalog`. */
export const apiDeps = (config: ApiConfig, clock: Clock, catalog: ModelCatalog): ApiDeps => {
  const { tableName, outputBucket, addressPolicy, retentionSeconds } = config;
  const prefix = config.fleetClusterPrefix;
  const accounts = dynamoAccountStore(tableName);
  return {
    catalog,
    ...endingWiring(config, clock, (message, fields) => logger.warn(message, fields)),
    outputs: s3OutputReader(outputBucket),
    inputs: s3InputStore(outputBucket),
    files: s3DynamoFileStore(tableName, outputBucket),
    retentionSeconds,
    workflow: sfnWorkflowClient(),
    stateMachineArnOf: config.stateMachineArnOf,
    clock,
    ids: randomIds,
    sleep: (ms, signal) => sleep(ms, undefined, { signal }).catch(() => undefined),
    addressPolicy,
    endingInbox: sqsEndingInbox({
      namePrefix: config.waiterQueuePrefix,
      now: () => clock.now(),
      report: (message, fields) => logger.warn(message, fields),
    }),
    accounts,
    monthlyLimits: monthlyLimitsKept(accounts),
    deliveries: dynamoDeliveryLog(tableName, dynamo(), retentionSeconds),
    checkWebhookHost: (url) => checkWebhookHost(url, addressPolicy),
    rateLimiter: instanceRateLimiter(dynamoRateWindows(tableName)),
    requestLog: dynamoRequestLog(tableName),
    ratePerSecond: config.ratePerSecond,
    fleets: awsFleetScaling(),
    deploymentLog: dynamoDeploymentLog(tableName),
    fleetClusterOf: prefix === null ? null : (model) => clusterOfModel(prefix, model),
    examples: dynamoModelExamples(tableName),
  };
};
