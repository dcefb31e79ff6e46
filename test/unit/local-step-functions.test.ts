import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { LocalStepFunctions, type ExecutionEnded } from '../../local/stepfunctions/service.ts';
import { localStateMachineArn } from '../../local/template.ts';

const PASS = localStateMachineArn('Passing');
const WAIT = localStateMachineArn('Waiting');

const service = () => {
  const ended: ExecutionEnded[] = [];
  const stepFunctions = new LocalStepFunctions(
    [
      { arn: PASS, definition: { StartAt: 'Done', States: { Done: { Type: 'Pass', End: true } } } },
      { arn: WAIT, definition: { StartAt: 'Wait', States: { Wait: { Type: 'Wait', Seconds: 86_400, End: true } } } },
    ],
    // Neither machine has a Task: nothing is called.
    { dynamodb: new DynamoDBClient({}), sqs: new SQSClient({}), functions: new Map() },
    (execution) => ended.push(execution),
  );
  const endOf = async (arn: string) => {
    await expect.poll(() => ended.find((execution) => execution.executionArn === arn)).toBeDefined();
    return ended.find((execution) => execution.executionArn === arn);
  };
  return { stepFunctions, endOf };
};

describe('the local Step Functions', () => {
  it('describes an ended execution and its history, and a stop changes nothing of it', async () => {
    const { stepFunctions, endOf } = service();
    const { executionArn } = stepFunctions.startExecution(PASS, 'one', '{"predictionId":"p"}');
    expect((await endOf(executionArn))?.status).toBe('SUCCEEDED');
    const described = stepFunctions.describeExecution(executionArn);
    expect(described).toMatchObject({ status: 'SUCCEEDED', output: '{"predictionId":"p"}' });
    const { stopDate } = stepFunctions.stopExecution(executionArn, 'Late', 'after its end');
    expect(stopDate).toBe(described.stopDate);
    expect(stepFunctions.describeExecution(executionArn)).toEqual(described);
    expect(stepFunctions.getExecutionHistory(executionArn).events.map((event) => event.type)).toContain(
      'ExecutionSucceeded',
    );
    expect(stepFunctions.runningCount()).toBe(0);
  });

  it('stops a running one, which ends aborted with the error and cause it was stopped with', async () => {
    const { stepFunctions, endOf } = service();
    const { executionArn } = stepFunctions.startExecution(WAIT, 'two', '{}');
    expect(stepFunctions.runningCount()).toBe(1);
    stepFunctions.stopExecution(executionArn, 'Stopped', 'an operator');
    expect(await endOf(executionArn)).toMatchObject({ status: 'ABORTED', error: 'Stopped', cause: 'an operator' });
    expect(stepFunctions.runningCount()).toBe(0);
    stepFunctions.stopExecution(executionArn, 'Again', 'twice');
    expect(stepFunctions.describeExecution(executionArn)).toMatchObject({ status: 'ABORTED', error: 'Stopped' });
  });
});
