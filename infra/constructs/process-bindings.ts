import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { ContainerDefinition } from 'aws-cdk-lib/aws-ecs';
import { Stack } from 'aws-cdk-lib';
import { Grant, PolicyStatement, type IGrantable } from 'aws-cdk-lib/aws-iam';
import type { CfnFunction, Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import type { z } from 'zod';
import { API_ENV } from '../../shared/config/api.ts';
import { fleetClusterPrefixOf } from '../../shared/fleet-config.ts';
import { AUTHORIZER_ENV } from '../../shared/config/authorizer.ts';
import { FINALIZE_ENV } from '../../shared/config/finalize.ts';
import type { PROCESS_ENVIRONMENTS, ProcessKind } from '../../shared/config/kinds.ts';
import { SWEEPER_ENV } from '../../shared/config/sweeper.ts';
import { WEBHOOK_SENDER_ENV } from '../../shared/config/webhook-sender.ts';
import { WORKER_ENV } from '../../shared/config/worker.ts';
import { INPUTS_PREFIX } from '../../shared/ports/input-store.ts';
import { grantObjectRead } from './data-store.ts';
import { tag } from './metadata.ts';
import type { WaiterQueues } from './waiter-queues.ts';
import type { OwnerSignIn } from './owner-sign-in.ts';
import type { WorkflowArns } from './workflow-arns.ts';

/**
 * Each kind of process is told where its resources are and is granted what it does with them in
 * one call, so that its environment and its permissions cannot drift apart; the variables are
 * those of its configuration module (shared/config/), which the compiler checks it sets.
 */

/** What a kind of process is given in its environment: every variable its schema requires, any it may take. */
type VariablesOf<K extends ProcessKind> = z.input<(typeof PROCESS_ENVIRONMENTS)[K]>;

/** Sets a function's variables and tags its kind, by which the local runtime and the tests read them. */
const configure = <K extends ProcessKind>(fn: LambdaFunction, kind: K, variables: VariablesOf<K>): void => {
  for (const [name, value] of Object.entries(variables as Record<string, string | undefined>)) {
    if (value !== undefined) fn.addEnvironment(name, value);
  }
  tag(fn.node.defaultChild as CfnFunction, { config: kind });
};

/** The resources an API route function is told of. */
export interface ApiResources {
  readonly table: ITable;
  readonly bucket: IBucket;
  readonly webhookQueue: IQueue;
  readonly workflows: WorkflowArns;
  readonly waiterQueues: WaiterQueues;
}

/** What a route does with its resources, beyond knowing where they are: each route gets only its own. */
export interface ApiAccess {
  /** Reads and writes the table and reads stored objects (every route with an account: each counts its requests). */
  readonly data?: boolean;
  /** Writes objects (uploads). */
  readonly putsObjects?: boolean;
  /** Keeps large inputs in the bucket (writes and removes them, under INPUTS_PREFIX only). */
  readonly keepsInputs?: boolean;
  readonly deletesObjects?: boolean;
  /** Queues webhooks (the ends it makes). */
  readonly sendsWebhooks?: boolean;
  /** Waits for the ends of the predictions it makes (Prefer: wait), on a queue of its own. */
  readonly waitsForEndings?: boolean;
  /** Ends predictions (a cancel): tells their waiters. */
  readonly endsPredictions?: boolean;
  readonly startsWorkflows?: boolean;
  /** Calls on workflow executions, such as states:DescribeExecution. */
  readonly executionActions?: readonly string[];
  /** Reads the models' fleets (the deployments routes): their services' counts and their scalable targets' bounds. */
  readonly readsFleets?: boolean;
  /** Changes the fleets' scalable targets' bounds (the PATCH deployments route); with readsFleets, which finds them. */
  readonly resizesFleets?: boolean;
}

export const bindApiFunction = (fn: LambdaFunction, on: ApiResources, access: ApiAccess): void => {
  configure(fn, 'api', {
    [API_ENV.tableName]: on.table.tableName,
    [API_ENV.webhookQueueUrl]: on.webhookQueue.queueUrl,
    [API_ENV.outputBucket]: on.bucket.bucketName,
    [API_ENV.stateMachinePrefix]: on.workflows.arnPrefix,
    [API_ENV.waiterQueuePrefix]: on.waiterQueues.namePrefix,
    [API_ENV.fleetClusterPrefix]: access.readsFleets ? fleetClusterPrefixOf(Stack.of(fn).stackName) : undefined,
  });
  if (access.data) {
    on.table.grantReadWriteData(fn);
    grantObjectRead(on.bucket, fn);
  }
  if (access.putsObjects) on.bucket.grantPut(fn);
  if (access.keepsInputs) {
    on.bucket.grantPut(fn, `${INPUTS_PREFIX}*`);
    on.bucket.grantDelete(fn, `${INPUTS_PREFIX}*`);
  }
  if (access.deletesObjects) on.bucket.grantDelete(fn);
  if (access.sendsWebhooks) on.webhookQueue.grantSendMessages(fn);
  if (access.waitsForEndings) on.waiterQueues.grantWait(fn);
  if (access.endsPredictions) on.waiterQueues.grantTell(fn);
  if (access.startsWorkflows) on.workflows.grantStart(fn);
  if (access.executionActions?.length) on.workflows.grantExecution(fn, ...access.executionActions);
  if (access.readsFleets) grantFleetReads(fn);
  if (access.resizesFleets) grantFleetResizes(fn);
};

/**
 * The fleets' clusters are named by the stack's prefix (`fleetClusterName`), one ECS service each:
 * the routes find a fleet from its model alone, with no reference into each model's nested stack.
 */
const grantFleetReads = (fn: LambdaFunction): void => {
  const stack = Stack.of(fn);
  const prefix = fleetClusterPrefixOf(stack.stackName);
  // ListServices takes no resource-level permission; its `ecs:cluster` condition keeps it to the fleets' clusters.
  fn.addToRolePolicy(
    new PolicyStatement({
      actions: ['ecs:ListServices'],
      resources: ['*'],
      conditions: {
        ArnLike: {
          'ecs:cluster': stack.formatArn({ service: 'ecs', resource: 'cluster', resourceName: `${prefix}*` }),
        },
      },
    }),
  );
  Grant.addToPrincipal({
    grantee: fn,
    actions: ['ecs:DescribeServices'],
    resourceArns: [stack.formatArn({ service: 'ecs', resource: 'service', resourceName: `${prefix}*/*` })],
  });
  // Application Auto Scaling's Describe* calls take no resource-level permission.
  Grant.addToPrincipal({
    grantee: fn,
    actions: ['application-autoscaling:DescribeScalableTargets'],
    resourceArns: ['*'],
  });
};

/**
 * An operator's new bounds are registered on the fleet's scalable target (RegisterScalableTarget
 * with the service's resource id), which Application Auto Scaling allows a caller only if it may
 * also describe and update that ECS service: those two are held to the fleets' services.
 */
const grantFleetResizes = (fn: LambdaFunction): void => {
  const stack = Stack.of(fn);
  const prefix = fleetClusterPrefixOf(stack.stackName);
  // RegisterScalableTarget's resource is the target's ARN, `scalable-target/<id>` (Service
  // Authorization Reference), whose id Application Auto Scaling makes when it registers the
  // target: no template knows it, and holding the grant by a tag (aws:ResourceTag) would rest on
  // every fleet's target being tagged. On `*`, the ECS services it may resize are still the
  // fleets' alone: the only ones whose DescribeServices and UpdateService it holds.
  Grant.addToPrincipal({
    grantee: fn,
    actions: ['application-autoscaling:RegisterScalableTarget'],
    resourceArns: ['*'],
  });
  Grant.addToPrincipal({
    grantee: fn,
    actions: ['ecs:DescribeServices', 'ecs:UpdateService'],
    resourceArns: [stack.formatArn({ service: 'ecs', resource: 'service', resourceName: `${prefix}*/*` })],
  });
};

/** A function that needs nothing of the deployment: no variables, no grants. */
export const bindUnconfigured = (fn: LambdaFunction): void => configure(fn, 'unconfigured', {});

export const bindAuthorizer = (
  fn: LambdaFunction,
  on: { readonly table: ITable; readonly owners: OwnerSignIn },
): void => {
  configure(fn, 'authorizer', {
    [AUTHORIZER_ENV.tableName]: on.table.tableName,
    [AUTHORIZER_ENV.ownerIssuer]: on.owners.issuer,
    [AUTHORIZER_ENV.ownerClientId]: on.owners.client.userPoolClientId,
  });
  on.table.grantReadData(fn);
  // It notes an API token's last use (at most every few minutes per token): one conditional update, nothing more.
  on.table.grant(fn, 'dynamodb:UpdateItem');
};

export const bindFinalize = (
  fn: LambdaFunction,
  on: { readonly table: ITable; readonly webhookQueue: IQueue; readonly waiterQueues: WaiterQueues },
): void => {
  configure(fn, 'finalize', {
    [FINALIZE_ENV.tableName]: on.table.tableName,
    [FINALIZE_ENV.webhookQueueUrl]: on.webhookQueue.queueUrl,
  });
  on.table.grantReadWriteData(fn);
  on.webhookQueue.grantSendMessages(fn);
  on.waiterQueues.grantTell(fn);
};

export const bindWebhookSender = (
  fn: LambdaFunction,
  on: { readonly table: ITable; readonly bucket: IBucket; readonly webhookQueue: IQueue },
): void => {
  configure(fn, 'webhook-sender', {
    [WEBHOOK_SENDER_ENV.tableName]: on.table.tableName,
    [WEBHOOK_SENDER_ENV.webhookQueueUrl]: on.webhookQueue.queueUrl,
    [WEBHOOK_SENDER_ENV.outputBucket]: on.bucket.bucketName,
  });
  on.table.grantReadWriteData(fn); // reads predictions, writes the delivery log
  grantObjectRead(on.bucket, fn); // a large output, read into the body
  on.webhookQueue.grantConsumeMessages(fn);
};

/** The sweeper's resources (the fleets it wakes are bound by the Sweeper construct, for AWS only). */
export const bindSweeper = (
  fn: LambdaFunction,
  on: {
    readonly table: ITable;
    readonly webhookQueue: IQueue;
    readonly workflows: WorkflowArns;
    readonly waiterQueues: WaiterQueues;
  },
): void => {
  configure(fn, 'sweeper', {
    [SWEEPER_ENV.tableName]: on.table.tableName,
    [SWEEPER_ENV.webhookQueueUrl]: on.webhookQueue.queueUrl,
    [SWEEPER_ENV.stateMachinePrefix]: on.workflows.arnPrefix,
    [SWEEPER_ENV.waiterQueuePrefix]: on.waiterQueues.namePrefix,
  });
  on.table.grantReadWriteData(fn);
  on.webhookQueue.grantSendMessages(fn);
  on.waiterQueues.grantTell(fn);
  on.waiterQueues.grantRemoveOld(fn);
  on.workflows.grantStart(fn);
  on.workflows.grantExecution(fn, 'states:StopExecution', 'states:DescribeExecution');
};

/** The resources a model's worker is told of; its task role is granted what it does with them. */
export interface WorkerResources {
  readonly table: ITable;
  readonly queue: IQueue;
  readonly webhookQueue: IQueue;
  readonly bucket: IBucket;
  readonly stateMachine: IStateMachine;
  /** The worker tells the waiters of the predictions it ends. */
  readonly waiterQueues: WaiterQueues;
}

export const bindWorker = (worker: ContainerDefinition, role: IGrantable, on: WorkerResources): void => {
  const variables = {
    [WORKER_ENV.tableName]: on.table.tableName,
    [WORKER_ENV.queueUrl]: on.queue.queueUrl,
    [WORKER_ENV.webhookQueueUrl]: on.webhookQueue.queueUrl,
    [WORKER_ENV.outputBucket]: on.bucket.bucketName,
  } satisfies Partial<VariablesOf<'worker'>>;
  for (const [name, value] of Object.entries(variables)) worker.addEnvironment(name, value);
  on.queue.grantConsumeMessages(role);
  on.table.grantReadWriteData(role);
  on.bucket.grantPut(role);
  // The large inputs the API kept by reference, and nothing else of the bucket: outputs are only written.
  grantObjectRead(on.bucket, role, `${INPUTS_PREFIX}*`);
  on.webhookQueue.grantSendMessages(role);
  on.waiterQueues.grantTell(role);
  on.stateMachine.grantTaskResponse(role);
};
