import { Duration } from 'aws-cdk-lib';
import { Queue, QueueEncryption, type CfnQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { phaseLimitsOf, type ModelDefinition } from '../../shared/catalog/registry.ts';
import { dispatchTimeoutSeconds } from '../workflow/prediction-chain.ts';
import { tag } from './metadata.ts';

export interface ModelQueueProps {
  readonly model: ModelDefinition;
  /**
   * Receives after which a job message goes to the dead-letter queue (whose consumer ends the
   * prediction). Default: two per attempt (a run, and a return when its model server went
   * away) plus three for workers that stopped before claiming it.
   */
  readonly maxReceiveCount?: number;
}

/** SQS keeps messages at most 14 days. */
const MAX_RETENTION_SECONDS = 14 * 86_400;

/** A model's job queue. Messages only point at predictions; the worker re-reads the prediction. */
export class ModelQueue extends Construct {
  public readonly queue: Queue;
  public readonly deadLetterQueue: Queue;
  public readonly maxReceiveCount: number;

  constructor(scope: Construct, id: string, props: ModelQueueProps) {
    super(scope, id);
    const limits = phaseLimitsOf(props.model);
    this.maxReceiveCount = props.maxReceiveCount ?? 2 * limits.maxAttempts + 3;
    if (this.maxReceiveCount < limits.maxAttempts) throw new Error('maxReceiveCount must allow every attempt');
    this.deadLetterQueue = new Queue(this, 'DeadLetters', {
      encryption: QueueEncryption.SQS_MANAGED,
      retentionPeriod: Duration.days(14),
      enforceSSL: true,
      // Its consumer is the sweeper function: AWS asks for six times a consumer's timeout.
      visibilityTimeout: Duration.minutes(15),
    });
    this.queue = new Queue(this, 'Jobs', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // The worker's lease: a received message stays hidden this long unless renewed. Workers
      // ask for it on every receive too; this is the queue's default for any other reader.
      visibilityTimeout: Duration.seconds(limits.leaseSeconds),
      // A job outlives its queue waits and runs; the workflow's own deadline comes first.
      retentionPeriod: Duration.seconds(Math.min(MAX_RETENTION_SECONDS, dispatchTimeoutSeconds(limits) + 3600)),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: this.maxReceiveCount },
    });
    tag(this.queue.node.defaultChild as CfnQueue, { model: props.model.id, role: 'model-queue' });
    tag(this.deadLetterQueue.node.defaultChild as CfnQueue, { model: props.model.id, role: 'model-dead-letters' });
  }
}
