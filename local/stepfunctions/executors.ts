import {
  DeleteItemCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { invokeLocal, type LocalFunction } from '../lambda-host.ts';
import { StatesError, type TaskTokens } from './task-tokens.ts';

/** A Task state of the definition: what the executor library hands us, plus what we need. */
export interface TaskState {
  readonly Resource: string;
  readonly HeartbeatSeconds?: number;
  readonly TimeoutSeconds?: number;
}

export interface ExecutorDeps {
  readonly dynamodb: DynamoDBClient;
  readonly sqs: SQSClient;
  readonly tokens: TaskTokens;
  /** Lambda function ARN → the function of the template. */
  readonly functions: ReadonlyMap<string, LocalFunction>;
}

type Executor = (parameters: Record<string, unknown>) => Promise<unknown>;

const withoutMetadata = (output: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(output).filter(([key]) => key !== '$metadata'));

const DYNAMODB_ACTIONS: Record<string, (params: Record<string, unknown>) => object> = {
  updateItem: (params) => new UpdateItemCommand(params as never),
  putItem: (params) => new PutItemCommand(params as never),
  getItem: (params) => new GetItemCommand(params as never),
  deleteItem: (params) => new DeleteItemCommand(params as never),
};

/** SDK errors carry the service's error name; Step Functions prefixes it with the service. */
const asStatesError = (service: string, error: unknown): StatesError =>
  new StatesError(
    `${service}.${error instanceof Error ? error.name : 'Error'}`,
    error instanceof Error ? error.message : String(error),
  );

/**
 * Binds one Task state to the AWS call its Resource names, made against the emulators with the
 * Parameters the executor library has already evaluated. Never a per-state imitation.
 */
export const executorFor = (state: TaskState, taskToken: string, deps: ExecutorDeps): Executor => {
  const sdkIntegration = /^arn:aws:states:::(\w+):(\w+)(\.waitForTaskToken)?$/.exec(state.Resource);
  if (sdkIntegration) {
    const [, service, action = '', waitForToken] = sdkIntegration;
    if (service === 'dynamodb' && DYNAMODB_ACTIONS[action]) {
      const command = DYNAMODB_ACTIONS[action];
      return async (params) => {
        try {
          return withoutMetadata(
            (await deps.dynamodb.send(command(params) as never)) as unknown as Record<string, unknown>,
          );
        } catch (error) {
          throw asStatesError('DynamoDB', error);
        }
      };
    }
    if (service === 'sqs' && action === 'sendMessage') {
      return async (params) => {
        const { MessageBody, ...rest } = params;
        const body = typeof MessageBody === 'string' ? MessageBody : JSON.stringify(MessageBody);
        // Wait on the token before sending, so that a very fast worker cannot report first.
        const callback = waitForToken ? deps.tokens.wait(taskToken, state.HeartbeatSeconds ?? null) : undefined;
        try {
          const sent = await deps.sqs.send(
            new SendMessageCommand({ ...(rest as { QueueUrl: string }), MessageBody: body }),
          );
          if (!callback) return withoutMetadata(sent as unknown as Record<string, unknown>);
        } catch (error) {
          callback?.catch(() => undefined);
          deps.tokens.close(taskToken);
          throw asStatesError('SQS', error);
        }
        return callback;
      };
    }
  }
  const fn = deps.functions.get(state.Resource);
  if (fn) {
    return async (params) => {
      try {
        return await invokeLocal(fn, params);
      } catch (error) {
        const name = error instanceof Error ? error.name : 'Error';
        const message = error instanceof Error ? error.message : String(error);
        throw new StatesError(name, JSON.stringify({ errorType: name, errorMessage: message }));
      }
    };
  }
  throw new Error(`the local runtime has no executor for the resource ${state.Resource}`);
};
