import {
  SendTaskFailureCommand,
  SendTaskHeartbeatCommand,
  SendTaskSuccessCommand,
  StartExecutionCommand,
  StopExecutionCommand,
  type SFNClient,
} from '@aws-sdk/client-sfn';
import type { ExecutionInput, RunFailureCause } from '../workflow/messages.ts';
import { stepFunctions } from './aws-clients.ts';

/** Executions are named after their prediction, so the ARN is derived, never stored. */
export const executionArnOf = (stateMachineArn: string, predictionId: string): string =>
  `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${predictionId}`;

export interface WorkflowClient {
  start(stateMachineArn: string, input: ExecutionInput): Promise<void>;
  /** Stops the execution; an execution that already ended is not an error. */
  stop(stateMachineArn: string, predictionId: string, cause: string): Promise<void>;
}

export const sfnWorkflowClient = (client: SFNClient = stepFunctions()): WorkflowClient => ({
  async start(stateMachineArn, input) {
    await client.send(
      new StartExecutionCommand({ stateMachineArn, name: input.predictionId, input: JSON.stringify(input) }),
    );
  },
  async stop(stateMachineArn, predictionId, cause) {
    try {
      await client.send(new StopExecutionCommand({ executionArn: executionArnOf(stateMachineArn, predictionId), cause }));
    } catch (error) {
      if (error instanceof Error && error.name === 'ExecutionDoesNotExist') return;
      throw error;
    }
  },
});

/** The worker's side of the callback pattern. */
export interface TaskCallbacks {
  heartbeat(taskToken: string): Promise<void>;
  succeed(taskToken: string, output: unknown): Promise<void>;
  fail(taskToken: string, error: string, cause: RunFailureCause): Promise<void>;
}

/** Errors by which Step Functions says the task is over: the execution was stopped or timed out. */
export const TASK_CLOSED_ERRORS = new Set(['TaskTimedOut', 'TaskDoesNotExist', 'InvalidToken']);

export const sfnTaskCallbacks = (client: SFNClient = stepFunctions()): TaskCallbacks => ({
  async heartbeat(taskToken) {
    await client.send(new SendTaskHeartbeatCommand({ taskToken }));
  },
  async succeed(taskToken, output) {
    await client.send(new SendTaskSuccessCommand({ taskToken, output: JSON.stringify(output) }));
  },
  async fail(taskToken, error, cause) {
    await client.send(new SendTaskFailureCommand({ taskToken, error, cause: JSON.stringify(cause) }));
  },
});
