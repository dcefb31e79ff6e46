import type { SFNClient } from '@aws-sdk/client-sfn';
import { sfnSdkAndClient } from './sfn-client.ts';
import type { WorkflowClient, TaskCallbacks } from '../ports/workflow-client.ts';

/** Executions are named after their prediction, so the ARN is derived, never stored. */
export const executionArnOf = (stateMachineArn: string, predictionId: string): string =>
  `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${predictionId}`;

const named = (error: unknown, ...names: string[]): boolean => error instanceof Error && names.includes(error.name);

export const sfnWorkflowClient = (given?: SFNClient): WorkflowClient => {
  const sdk = sfnSdkAndClient(given);
  return {
    async start(stateMachineArn, input) {
      const [{ StartExecutionCommand }, sfn] = await sdk();
      try {
        await sfn.send(
          new StartExecutionCommand({ stateMachineArn, name: input.predictionId, input: JSON.stringify(input) }),
        );
        return 'started';
      } catch (error) {
        if (named(error, 'ExecutionAlreadyExists')) return 'exists';
        throw error;
      }
    },
    async stop(stateMachineArn, predictionId, cause) {
      const [{ StopExecutionCommand }, sfn] = await sdk();
      try {
        await sfn.send(
          new StopExecutionCommand({ executionArn: executionArnOf(stateMachineArn, predictionId), cause }),
        );
      } catch (error) {
        if (named(error, 'ExecutionDoesNotExist')) return;
        throw error;
      }
    },
    async status(stateMachineArn, predictionId) {
      const [{ DescribeExecutionCommand }, sfn] = await sdk();
      try {
        const { status } = await sfn.send(
          new DescribeExecutionCommand({ executionArn: executionArnOf(stateMachineArn, predictionId) }),
        );
        return status ?? 'MISSING';
      } catch (error) {
        if (named(error, 'ExecutionDoesNotExist')) return 'MISSING';
        throw error;
      }
    },
  };
};

/** Errors by which Step Functions says the task is over already: stopped, timed out, or done. */
export const TASK_CLOSED_ERRORS = new Set(['TaskTimedOut', 'TaskDoesNotExist', 'InvalidToken']);

export const sfnTaskCallbacks = (given?: SFNClient): TaskCallbacks => {
  const sdk = sfnSdkAndClient(given);
  return {
    async succeed(taskToken, result) {
      const [{ SendTaskSuccessCommand }, sfn] = await sdk();
      try {
        await sfn.send(new SendTaskSuccessCommand({ taskToken, output: JSON.stringify(result) }));
      } catch (error) {
        if (error instanceof Error && TASK_CLOSED_ERRORS.has(error.name)) return;
        throw error;
      }
    },
  };
};
