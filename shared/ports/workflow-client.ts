import type { ExecutionInput, TaskResult } from '../workflow/messages.ts';

export type ExecutionStatus =
  'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED' | 'PENDING_REDRIVE' | 'MISSING';

/** The port to a prediction's workflow execution (Step Functions, or its local emulator). */
export interface WorkflowClient {
  /** Starts the prediction's execution; `exists` when one of that name was started before. */
  start(stateMachineArn: string, input: ExecutionInput): Promise<'started' | 'exists'>;
  /** Stops the execution; an execution that already ended, or never began, is not an error. */
  stop(stateMachineArn: string, predictionId: string, cause: string): Promise<void>;
  status(stateMachineArn: string, predictionId: string): Promise<ExecutionStatus>;
}

/** The error names by which the workflow engine refuses a call for now: a call that throws one is worth a brief retry. */
export const THROTTLED_ERRORS = new Set([
  'ThrottlingException',
  'TooManyRequestsException',
  'ExecutionLimitExceeded',
  'ServiceUnavailable',
  'InternalServerError',
]);

/** The worker's side of the callback pattern: the task token is used once, to end the task. */
export interface TaskCallbacks {
  succeed(taskToken: string, result: TaskResult): Promise<void>;
}
