import { PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { formatTimestamp } from '../domain/clock.ts';
import { dynamo } from './aws-clients.ts';

/** How long a request kept for diagnostics (`x-log-request: true`) is kept. */
export const REQUEST_LOG_RETENTION_SECONDS = 7 * 24 * 60 * 60;

export interface LoggedRequest {
  readonly requestId: string;
  readonly account: string;
  readonly method: string;
  readonly path: string;
  /** Headers as sent, less `authorization`. */
  readonly headers: Record<string, string>;
  readonly body: string | null;
}

/**
 * Requests whose senders allowed it (`x-log-request: true`), kept under their `x-request-id` for
 * support, and deleted by TTL after a week. Nothing from a request body reaches a log line.
 */
export interface RequestLog {
  keep(request: LoggedRequest, nowMs: number): Promise<void>;
}

export const dynamoRequestLog = (tableName: string, client: DynamoDBDocumentClient = dynamo()): RequestLog => ({
  async keep(request, nowMs) {
    await client.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          pk: `REQUESTLOG#${request.requestId}`,
          sk: formatTimestamp(nowMs),
          type: 'request_log',
          account: request.account,
          method: request.method,
          path: request.path,
          headers: request.headers,
          body: request.body,
          expires_at: Math.floor(nowMs / 1000) + REQUEST_LOG_RETENTION_SECONDS,
        },
      }),
    );
  },
});
