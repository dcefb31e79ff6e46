import path from 'node:path';

export const REPO_ROOT = path.resolve(import.meta.dirname, '..');
export const LOCAL_ACCOUNT = '000000000000';
export const LOCAL_REGION = 'us-east-1';

/** The ARNs the local runtime gives the template's functions and state machines. */
export const localFunctionArn = (logicalId: string): string =>
  `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT}:function:${logicalId}`;
export const localStateMachineArn = (logicalId: string): string =>
  `arn:aws:states:${LOCAL_REGION}:${LOCAL_ACCOUNT}:stateMachine:${logicalId}`;
