import { Duration } from 'aws-cdk-lib';
import { Queue, QueueEncryption, type CfnQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { ModelDefinition } from '../../shared/models/registry.ts';
import { tag } from './metadata.ts';

export interface ModelQueueProps {
  readonly model: ModelDefinition;
  /** Receives after which a job message goes to the dead-letter queue. Default: 5. */
  readonly maxReceiveCount?: number;
}

/** A model's job queue. Messages only point at predictions; the worker re-reads the prediction. */
export class ModelQueue extends Construct {
  public readonly queue: Queue;
  public readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: ModelQueueProps) {
    super(scope, id);
    const maxReceiveCount = props.maxReceiveCount ?? 5;
    if (maxReceiveCount < 1) throw new Error('maxReceiveCount must be at least 1');
    this.deadLetterQueue = new Queue(this, 'DeadLetters', {
      encryption: QueueEncryption.SQS_MANAGED,
      retentionPeriod: Duration.days(14),
      enforceSSL: true,
    });
    this.queue = new Queue(this, 'Jobs', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // A worker that dies leaves its message invisible this long; the heartbeat timeout
      // (much shorter) has ended the prediction by the time it reappears.
      visibilityTimeout: Duration.seconds(Math.max(60, props.model.timeouts.heartbeatSeconds * 3)),
      retentionPeriod: Duration.seconds(Math.max(props.model.timeouts.runSeconds, 60)),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount },
    });
    tag(this.queue.node.defaultChild as CfnQueue, { model: props.model.id, role: 'model-queue' });
  }
}
