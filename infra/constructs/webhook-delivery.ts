import { Duration } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { RETRY_POLICY } from '../../shared/workflow/webhook-policy.ts';
import { bindWebhookSender } from './process-bindings.ts';
import { PrognozFunction } from './prognoz-function.ts';

export interface WebhookDeliveryProps {
  readonly table: ITable;
  /** Large outputs are read from here into the webhook body. */
  readonly bucket: IBucket;
}

/**
 * Webhook queue → sender Lambda (partial batch failures) → dead-letter queue after the last retry.
 * maxReceiveCount is the first attempt plus the retries of the policy, so SQS dead-letters
 * exactly when the policy is spent.
 */
export class WebhookDelivery extends Construct {
  public readonly queue: Queue;
  public readonly deadLetterQueue: Queue;
  public readonly sender: PrognozFunction;

  constructor(scope: Construct, id: string, props: WebhookDeliveryProps) {
    super(scope, id);
    this.deadLetterQueue = new Queue(this, 'DeadLetters', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    const senderTimeout = Duration.seconds(RETRY_POLICY.attemptTimeoutSeconds * RETRY_POLICY.batchSize + 10);
    this.queue = new Queue(this, 'Queue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // AWS asks for six times the function timeout, so a slow batch is never redelivered early.
      visibilityTimeout: Duration.seconds(senderTimeout.toSeconds() * 6),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: 1 + RETRY_POLICY.retryDelaysSeconds.length },
    });
    this.sender = new PrognozFunction(this, 'Sender', {
      entry: 'functions/webhooks/send-webhooks.ts',
      timeout: senderTimeout,
    });
    bindWebhookSender(this.sender.fn, { table: props.table, bucket: props.bucket, webhookQueue: this.queue });
    this.sender.fn.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: RETRY_POLICY.batchSize,
        reportBatchItemFailures: true,
        maxConcurrency: 20,
      }),
    );
  }
}
