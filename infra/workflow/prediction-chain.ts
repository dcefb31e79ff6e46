import { Duration } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import {
  Choice,
  Condition,
  Fail,
  IntegrationPattern,
  JsonPath,
  Succeed,
  TaskInput,
  Timeout,
  type IChainable,
} from 'aws-cdk-lib/aws-stepfunctions';
import { DynamoAttributeValue, DynamoUpdateItem, LambdaInvoke, SqsSendMessage } from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';
import { ACTIVE_STATUSES } from '../../shared/domain/prediction.ts';
import type { ModelDefinition } from '../../shared/models/registry.ts';

export interface PredictionChainProps {
  readonly model: ModelDefinition;
  readonly table: ITable;
  readonly queue: IQueue;
  readonly finalize: IFunction;
  readonly webhookQueue: IQueue;
}

const DYNAMO_THROTTLING = [
  'DynamoDB.ProvisionedThroughputExceededException',
  'DynamoDB.ThrottlingException',
  'DynamoDB.RequestLimitExceeded',
  'DynamoDB.InternalServerErrorException',
];

/**
 * The life of one prediction, written once: the CDK synthesizes it for AWS and the local runtime
 * runs the very same synthesized definition.
 *
 *   MarkQueued → Dispatch (SQS + task token; the worker heartbeats and reports) → Finalize
 *     → WebhookRegistered? → Notify (webhook queue) → Done
 *   Any failure of MarkQueued or Dispatch → Finalize (ends the prediction `failed`).
 *   Finalize failing for good → MarkFailed (a direct, conditional DynamoDB write) → Fail.
 *
 * Five states on the happy path (six with a webhook), since every transition is billed.
 */
export const predictionChain = (scope: Construct, props: PredictionChainProps): IChainable => {
  const key = {
    pk: DynamoAttributeValue.fromString(JsonPath.format('PREDICTION#{}', JsonPath.stringAt('$.predictionId'))),
    sk: DynamoAttributeValue.fromString('PREDICTION'),
  };
  const statusName = { '#status': 'status' };

  const markQueued = new DynamoUpdateItem(scope, 'MarkQueued', {
    table: props.table,
    key,
    updateExpression: 'SET #status = :queued',
    conditionExpression: '#status = :starting',
    expressionAttributeNames: statusName,
    expressionAttributeValues: {
      ':queued': DynamoAttributeValue.fromString('queued'),
      ':starting': DynamoAttributeValue.fromString('starting'),
    },
    resultPath: JsonPath.DISCARD,
    taskTimeout: Timeout.duration(Duration.seconds(30)),
  });

  const dispatch = new SqsSendMessage(scope, 'Dispatch', {
    queue: props.queue,
    integrationPattern: IntegrationPattern.WAIT_FOR_TASK_TOKEN,
    messageBody: TaskInput.fromObject({
      predictionId: JsonPath.stringAt('$.predictionId'),
      taskToken: JsonPath.taskToken,
    }),
    heartbeatTimeout: Timeout.duration(Duration.seconds(props.model.timeouts.heartbeatSeconds)),
    taskTimeout: Timeout.duration(Duration.seconds(props.model.timeouts.runSeconds)),
    resultPath: '$.result',
  });

  const finalize = new LambdaInvoke(scope, 'Finalize', {
    lambdaFunction: props.finalize,
    payloadResponseOnly: true,
    retryOnServiceExceptions: true,
    taskTimeout: Timeout.duration(Duration.seconds(30)),
    resultPath: '$.finalized',
  });

  const notify = new SqsSendMessage(scope, 'Notify', {
    queue: props.webhookQueue,
    messageBody: TaskInput.fromObject({
      predictionId: JsonPath.stringAt('$.predictionId'),
      status: JsonPath.stringAt('$.finalized.status'),
    }),
    resultPath: JsonPath.DISCARD,
    taskTimeout: Timeout.duration(Duration.seconds(30)),
  });
  notify.addRetry({ errors: ['States.ALL'], interval: Duration.seconds(1), backoffRate: 2, maxAttempts: 5 });
  const done = new Succeed(scope, 'Done');

  const markFailed = new DynamoUpdateItem(scope, 'MarkFailed', {
    table: props.table,
    key,
    updateExpression:
      'SET #status = :failed, #error = :error, completed_at = :null, runtime_ms = :null, cost_kopecks = :zero',
    conditionExpression: `#status IN (${ACTIVE_STATUSES.map((status) => `:${status}`).join(', ')})`,
    expressionAttributeNames: { ...statusName, '#error': 'error' },
    expressionAttributeValues: {
      ':failed': DynamoAttributeValue.fromString('failed'),
      ':error': DynamoAttributeValue.fromString('the service failed to record the result of this prediction'),
      ':null': DynamoAttributeValue.fromNull(true),
      ':zero': DynamoAttributeValue.fromNumber(0),
      ...Object.fromEntries(ACTIVE_STATUSES.map((status) => [`:${status}`, DynamoAttributeValue.fromString(status)])),
    },
    resultPath: JsonPath.DISCARD,
    taskTimeout: Timeout.duration(Duration.seconds(30)),
  });

  for (const write of [markQueued, markFailed]) {
    write.addRetry({ errors: DYNAMO_THROTTLING, interval: Duration.seconds(1), backoffRate: 2, maxAttempts: 5 });
  }
  finalize.addRetry({ errors: ['States.TaskFailed'], interval: Duration.seconds(1), backoffRate: 2, maxAttempts: 3 });

  markQueued.addCatch(finalize, { errors: ['States.ALL'], resultPath: '$.error' });
  dispatch.addCatch(finalize, { errors: ['States.ALL'], resultPath: '$.error' });
  finalize.addCatch(markFailed, { errors: ['States.ALL'], resultPath: '$.finalizeError' });
  markFailed.next(new Fail(scope, 'FinalizeFailed', { error: 'Prognoz.FinalizeFailed', cause: 'Finalize failed; the prediction was marked failed directly' }));

  const webhookRegistered = new Choice(scope, 'WebhookRegistered')
    .when(Condition.booleanEquals('$.finalized.notify', true), notify.next(done))
    .otherwise(done);
  return markQueued.next(dispatch).next(finalize).next(webhookRegistered);
};
