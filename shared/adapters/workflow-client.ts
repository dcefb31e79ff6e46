import {
  DescribeExecutionCommand,
  SendTaskSuccessCommand,
  StartExecutionCommand,
  StopExecutionCommand,
  type SFNClient,
} from '@aws-sdk/client-sfn';
import { stepFunctions } from './aws-clients.ts';
import type { WorkflowClient, TaskCallbacks } from '../ports/workflow-client.ts';

/** Executions are named after their prediction, so the ARN is derived, never stored. */
export const executionArnOf = (stateMachineArn: string, predictionId: string): string =>
  `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${predictionId}`;

const named = (error: unknown, ...names: string[]): boolean => error instanceof Error && names.includes(error.name);

export const sfnWorkflowClient = (client: SFNClient = stepFunctions()): WorkflowClient => ({
  async start(stateMachineArn, input) {
    try {
      await client.send(
        new StartExecutionCommand({ stateMachineArn, name: input.predictionId, input: JSON.stringify(input) }),
      );
      return 'started';
    } catch (error) {
      if (named(error, 'ExecutionAlreadyExists')) return 'exists';
      throw error;
    }
  },
  async stop(stateMachineArn, predictionId, cause) {
    try {
      await client.send(
        new StopExecutionCommand({ executionArn: executionArnOf(stateMachineArn, predictionId), cause }),
      );
    } catch (error) {
      if (named(error, 'ExecutionDoesNotExist')) return;
      throw error;
    }
  },
  async status(stateMachineArn, predictionId) {
    try {
      const { status } = await client.send(
        new DescribeExecutionCommand({ executionArn: executionArnOf(stateMachineArn, predictionId) }),
      );
      return status ?? 'MISSING';
    } catch (error) {
      if (named(error, 'ExecutionDoesNotExist')) return 'MISSING';
      throw error;
    }
  },
});

/** Errors by which Step Functions says the task is over already: stopped, timed out, or done. */
export const TASK_CLOSED_ERRORS = new Set(['TaskTimedOut', 'TaskDoesNotExist', 'InvalidToken']);

export const sfnTaskCallbacks = (client: SFNClient = stepFunctions()): TaskCallbacks => ({
  async succeed(taskToken, result) {
    try {
      await client.send(new SendTaskSuccessCommand({ taskToken, output: JSON.stringify(result) }));
    } catch (error) {
      if (error instanceof Error && TASK_CLOSED_ERRORS.has(error.name)) return;
      throw error;
    }
  },
});
