import { Duration, NestedStack, type NestedStackProps } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IVpc } from 'aws-cdk-lib/aws-ec2';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { WORKERS_LOST } from '../../shared/metrics.ts';
import type { ModelDefinition } from '../../shared/catalog/registry.ts';
import { notifyingAlarm } from './alarms.ts';
import { countOf } from './counts.ts';
import { ModelFleet } from './model-fleet.ts';
import { ModelQueue } from './model-queue.ts';
import { PredictionWorkflow } from './prediction-workflow.ts';
import type { WaiterQueues } from './waiter-queues.ts';

export interface ModelStackProps extends NestedStackProps {
  readonly model: ModelDefinition;
  readonly vpc: IVpc;
  readonly table: ITable;
  readonly bucket: IBucket;
  readonly webhookQueue: IQueue;
  readonly waiterQueues: WaiterQueues;
  readonly finalize: IFunction;
  /** Where the model's alarms notify. */
  readonly alarmTopic: ITopic;
  /** The fleet's cluster's name. */
  readonly clusterName: string;
  /** The workflow's state machine's name. */
  readonly stateMachineName: string;
  readonly minWarmTasks?: number;
}

/**
 * Everything of one model — its job queue, its workflow, its fleet and their alarms — in a nested
 * stack of its own: each model costs the main stack one resource, so one `cdk deploy` holds
 * dozens of models within CloudFormation's 500 resources a stack.
 */
export class ModelStack extends NestedStack {
  public readonly queue: ModelQueue;
  public readonly workflow: PredictionWorkflow;
  public readonly fleet: ModelFleet;

  constructor(scope: Construct, id: string, props: ModelStackProps) {
    super(scope, id, { ...props, description: `prognoz: the model ${props.model.id}` });
    const { model } = props;
    this.queue = new ModelQueue(this, 'Queue', { model });
    this.workflow = new PredictionWorkflow(this, 'Workflow', {
      model,
      queue: this.queue.queue,
      finalize: props.finalize,
      stateMachineName: props.stateMachineName,
    });
    this.fleet = new ModelFleet(this, 'Fleet', {
      model,
      vpc: props.vpc,
      clusterName: props.clusterName,
      queue: this.queue.queue,
      table: props.table,
      bucket: props.bucket,
      webhookQueue: props.webhookQueue,
      waiterQueues: props.waiterQueues,
      stateMachine: this.workflow.stateMachine,
      ...(props.minWarmTasks === undefined ? {} : { minWarmTasks: props.minWarmTasks }),
    });
    notifyingAlarm(this, 'DeadJobs', props.alarmTopic, {
      metric: this.queue.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(5),
        statistic: 'Maximum',
      }),
      threshold: 1,
      description: `${model.id}: jobs reached the dead-letter queue (no worker could finish them; the sweeper ends their predictions)`,
    });
    notifyingAlarm(this, 'FailedExecutions', props.alarmTopic, {
      metric: this.workflow.stateMachine.metricFailed({ period: Duration.minutes(5) }),
      threshold: 1,
      description: `${model.id}: a prediction workflow failed outright (Finalize could not record a result; the sweeper ends the prediction)`,
    });
    notifyingAlarm(this, 'WorkersLost', props.alarmTopic, {
      metric: countOf(WORKERS_LOST, { Model: model.id }, { period: Duration.minutes(5) }),
      threshold: 3,
      description: `${model.id}: workers stopped renewing their lease mid-run (their predictions went back to the queue)`,
    });
  }
}
