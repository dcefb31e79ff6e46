import { Duration } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { PrognozFunction } from './prognoz-function.ts';
import type { WorkflowArns } from './workflow-arns.ts';

export interface SweeperProps {
  readonly table: ITable;
  readonly webhookQueue: IQueue;
  /** Every prediction workflow: the sweeper starts, stops and describes their executions. */
  readonly workflows: WorkflowArns;
  /** The model queues' dead-letter queues: their jobs' predictions are ended. */
  readonly deadJobQueues: readonly IQueue[];
  /** The environment every function shares (table, webhook queue, state machines). */
  readonly environment: Readonly<Record<string, string>>;
  /** How often the sweeper looks for predictions past their deadlines. Default: every minute, EventBridge's finest. */
  readonly every?: Duration;
}

/**
 * The sweeper (DESIGN §2): one function, woken three ways — on a schedule, to move on every
 * prediction whose sweep deadline passed; by EventBridge when an execution ends without
 * success, to end the prediction behind it; and by the model queues' dead-letter queues, to end
 * the predictions whose jobs no worker could finish. Nothing stays stuck, and every way out
 * releases the hold and sends the webhook.
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
      environment: { ...props.environment },
      timeout: Duration.minutes(2),
    });
    const fn = this.fn.fn;
    props.table.grantReadWriteData(fn);
    props.webhookQueue.grantSendMessages(fn);
    props.workflows.grantStart(fn);
    props.workflows.grantExecution(fn, 'states:StopExecution', 'states:DescribeExecution');
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
}
