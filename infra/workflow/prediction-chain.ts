import { Duration } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { IntegrationPattern, JsonPath, TaskInput, Timeout, type IChainable } from 'aws-cdk-lib/aws-stepfunctions';
import { LambdaInvoke, SqsSendMessage } from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';
import type { PhaseLimits } from '../../shared/domain/prediction.ts';

export interface PredictionChainProps {
  readonly limits: PhaseLimits;
  readonly queue: IQueue;
  readonly finalize: IFunction;
}

/** Room, past the longest legitimate life of a job, for the worker's own deadlines to fire first. */
const DISPATCH_MARGIN_SECONDS = 300;

/**
 * The longest a prediction's job may legitimately last once dispatched: its queue limit, then
 * each of its attempts with the lease that notices a lost one, each followed by another wait.
 */
export const dispatchTimeoutSeconds = (limits: PhaseLimits): number =>
  limits.queueSeconds +
  limits.maxAttempts * (limits.runSeconds + limits.leaseSeconds + limits.queueSeconds) +
  DISPATCH_MARGIN_SECONDS;

/**
 * The life of one prediction, written once: the CDK synthesizes it for AWS and the local runtime
 * runs the very same synthesized definition.
 *
 *   Dispatch (SQS + task token, no heartbeat) — the worker claims, runs and ends the prediction
 *     itself, and ends the task with the token: one state transition for a prediction.
 *   Dispatch failing (the job could not be queued, or it outlived every deadline) → Finalize,
 *     which ends the prediction `failed` with the reason.
 *
 * No heartbeat timer: a prediction waiting in its queue is not a lost one. Liveness is the
 * worker's lease on the queue message, and the task token is used once. Nothing but the
 * prediction's id travels through the execution; inputs and outputs stay in the table and the
 * outputs bucket, out of payloads and the execution history.
 */
export const predictionChain = (scope: Construct, props: PredictionChainProps): IChainable => {
  const dispatch = new SqsSendMessage(scope, 'Dispatch', {
    queue: props.queue,
    integrationPattern: IntegrationPattern.WAIT_FOR_TASK_TOKEN,
    messageBody: TaskInput.fromObject({
      predictionId: JsonPath.stringAt('$.predictionId'),
      taskToken: JsonPath.taskToken,
    }),
    taskTimeout: Timeout.duration(Duration.seconds(dispatchTimeoutSeconds(props.limits))),
    resultPath: '$.result',
  });
  dispatch.addRetry({
    errors: ['SQS.SdkClientException', 'SQS.AmazonSQSException'],
    interval: Duration.seconds(1),
    backoffRate: 2,
    maxAttempts: 3,
  });

  const finalize = new LambdaInvoke(scope, 'Finalize', {
    lambdaFunction: props.finalize,
    payloadResponseOnly: true,
    retryOnServiceExceptions: true,
    taskTimeout: Timeout.duration(Duration.seconds(30)),
    resultPath: '$.finalized',
  });
  finalize.addRetry({
    errors: ['States.TaskFailed', 'States.Timeout'],
    interval: Duration.seconds(1),
    backoffRate: 2,
    maxAttempts: 3,
  });

  dispatch.addCatch(finalize, { errors: ['States.ALL'], resultPath: '$.error' });
  return dispatch;
};
