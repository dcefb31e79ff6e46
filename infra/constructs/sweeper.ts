import { ArnFormat, Duration, Stack } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IBaseService, ICluster } from 'aws-cdk-lib/aws-ecs';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Grant } from 'aws-cdk-lib/aws-iam';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { StringParameter } from 'aws-cdk-lib/aws-ssm';
import { Construct } from 'constructs';
import type { z } from 'zod';
import { SWEEPER_ENV } from '../../shared/config/sweeper.ts';
import { fleetParameterNameOf, fleetsPathOf } from '../../shared/fleet-config.ts';
import type { fleetParameter } from '../../shared/fleet-parameter.ts';
import { tag } from './metadata.ts';
import { bindSweeper } from './process-bindings.ts';
import { PrognozFunction } from './prognoz-function.ts';
import type { WaiterQueues } from './waiter-queues.ts';
import type { WorkflowArns } from './workflow-arns.ts';

/** A model's fleet as the sweeper sees it: the queue its jobs wait on, and the service that runs them. */
export interface SweptFleet {
  readonly modelId: string;
  readonly queue: IQueue;
  readonly cluster: ICluster;
  readonly service: IBaseService;
}

export interface SweeperProps {
  readonly table: ITable;
  readonly webhookQueue: IQueue;
  /** Every prediction workflow: the sweeper starts, stops and describes their executions. */
  readonly workflows: WorkflowArns;
  /** The synchronous waits' queues: the sweeper tells their waiters of the ends it makes, and removes the old ones. */
  readonly waiterQueues: WaiterQueues;
  /** The model queues' dead-letter queues: their jobs' predictions are ended. */
  readonly deadJobQueues: readonly IQueue[];
  /**
   * The fleets the sweeper wakes: one at zero tasks with jobs waiting is asked for a task, so the
   * first job after a quiet night does not wait for the queue's metrics (SQS stops them for a
   * queue idle six hours). Default: none.
   */
  readonly fleets?: readonly SweptFleet[];
  /** How often the sweeper looks for predictions past their deadlines. Default: every minute, EventBridge's finest. */
  readonly every?: Duration;
}

/**
 * The sweeper (architecture: The sweeper): one function, woken three ways — on a schedule, to move on every
 * prediction whose sweep deadline passed; by EventBridge when an execution ends without
 * success, to end the prediction behind it; and by the model queues' dead-letter queues, to end
 * the predictions whose jobs no worker could finish. Nothing stays stuck, and every way out
 * releases the hold and sends the webhook. On its schedule it also wakes the fleets at zero that
 * have jobs waiting.
 */
export class Sweeper extends Construct {
  public readonly fn: PrognozFunction;
  public readonly schedule: Rule;
  public readonly executionsEnded: Rule;

  constructor(scope: Construct, id: string, props: SweeperProps) {
    super(scope, id);
    const every = props.every ?? Duration.minutes(1);
    if (every.toSeconds() < 60) throw new Error('EventBridge schedules run at most once a minute');
    this.fn = new PrognozFunction(this, 'Function', {
      entry: 'functions/sweeper/sweep.ts',
      timeout: Duration.minutes(2),
    });
    const fn = this.fn.fn;
    bindSweeper(fn, props);
    if (props.fleets) this.wakes(props.fleets);
    this.schedule = new Rule(this, 'Schedule', {
      schedule: Schedule.rate(every),
      description: 'Moves on predictions past their deadlines',
      targets: [new LambdaFunction(fn, { retryAttempts: 0 })],
    });
    this.executionsEnded = new Rule(this, 'ExecutionsEnded', {
      description: 'A prediction workflow ended without success: end the prediction behind it',
      eventPattern: {
        source: ['aws.states'],
        detailType: ['Step Functions Execution Status Change'],
        detail: {
          status: ['FAILED', 'TIMED_OUT', 'ABORTED'],
          stateMachineArn: [{ prefix: props.workflows.arnPrefix }],
        },
      },
      targets: [new LambdaFunction(fn, { retryAttempts: 8, maxEventAge: Duration.hours(6) })],
    });
    for (const queue of props.deadJobQueues) {
      fn.addEventSource(new SqsEventSource(queue, { batchSize: 10, reportBatchItemFailures: true }));
    }
  }

  /**
   * Lists the fleets in Parameter Store, one parameter each under one path, and tells the function
   * that path (SWEEPER_ENV.fleetsPath, for AWS only): listed in the environment, a few dozen fleets would
   * outgrow Lambda's 4 KB. The function may read that path, the fleets' queues' attributes, and
   * their services' counts.
   */
  private wakes(fleets: readonly SweptFleet[]): void {
    const fn = this.fn.fn;
    const stack = Stack.of(this);
    const path = fleetsPathOf(stack.stackName);
    for (const fleet of fleets) {
      const parameterName = fleetParameterNameOf(stack.stackName, { id: fleet.modelId });
      const value: z.input<typeof fleetParameter> = {
        modelId: fleet.modelId,
        queueUrl: fleet.queue.queueUrl,
        cluster: fleet.cluster.clusterName,
        service: fleet.service.serviceName,
      };
      new StringParameter(this, `Fleet-${parameterName.slice(path.length + 1)}`, {
        parameterName,
        stringValue: stack.toJsonString(value),
        description: `The fleet of ${fleet.modelId}, which the sweeper wakes when jobs wait and it runs no task`,
      });
    }
    fn.addEnvironment(SWEEPER_ENV.fleetsPath, path);
    tag(fn.node.defaultChild as CfnFunction, { awsOnlyEnv: SWEEPER_ENV.fleetsPath });
    Grant.addToPrincipal({
      grantee: fn,
      actions: ['ssm:GetParametersByPath'],
      // GetParametersByPath is authorized against the path asked for, not the parameters returned.
      resourceArns: [
        stack.formatArn({
          service: 'ssm',
          resource: 'parameter',
          resourceName: path.slice(1),
          arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
        }),
      ],
    });
    if (fleets.length === 0) return;
    Grant.addToPrincipal({
      grantee: fn,
      actions: ['sqs:GetQueueAttributes'],
      resourceArns: fleets.map((fleet) => fleet.queue.queueArn),
    });
    Grant.addToPrincipal({
      grantee: fn,
      actions: ['ecs:DescribeServices', 'ecs:UpdateService'],
      resourceArns: fleets.map((fleet) => fleet.service.serviceArn),
    });
  }
}
