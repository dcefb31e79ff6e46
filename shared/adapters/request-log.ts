import { PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { formatTimestamp } from '../domain/clock.ts';
import { dynamo } from './aws-clients.ts';
import type { RequestLog } from '../ports/request-log.ts';

/** How long a request kept for diagnostics (`x-log-request: true`) is kept. */
export const REQUEST_LOG_RETENTION_SECONDS = 7 * 24 * 60 * 60;

/**
 * The most of a body that is kept: a table item holds 400 KB, and a body may be 1 MiB (an upload,
 * 6 MB). The rest is cut, and the item says how large the body was.
 */
export const MAX_KEPT_BODY_BYTES = 64 * 1024;

/** The body's first `maxBytes` of UTF-8, cut where a character begins. */
export const keptBody = (
  body: string,
  maxBytes: number = MAX_KEPT_BODY_BYTES,
): { readonly body: string; readonly bytes: number; readonly truncated: boolean } => {
  const bytes = Buffer.from(body, 'utf8');
  if (bytes.length <= maxBytes) return { body, bytes: bytes.length, truncated: false };
  let end = maxBytes;
  // A UTF-8 continuation byte (10xxxxxx) is never where a character begins.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return { body: bytes.subarray(0, end).toString('utf8'), bytes: bytes.length, truncated: true };
};

export const dynamoRequestLog = (tableName: string, client: DynamoDBDocumentClient = dynamo()): RequestLog => ({
  async keep(request, nowMs) {
    const body = request.body === null ? null : keptBody(request.body);
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
          // JSON text: a header may be named anything (`__proto__` too), which a DynamoDB map does not take.
          headers_json: JSON.stringify(request.headers),
          body: body?.body ?? null,
          ...(body?.truncated ? { body_bytes: body.bytes, body_truncated: true } : {}),
          expires_at: Math.floor(nowMs / 1000) + REQUEST_LOG_RETENTION_SECONDS,
        },
      }),
    );
  },
});
