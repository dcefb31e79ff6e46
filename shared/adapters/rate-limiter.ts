import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './aws-clients.ts';
import { rateWindowKey } from './table-keys.ts';
import type { RateLimiter } from '../ports/rate-limiter.ts';

const WINDOW_MS = 1000;

/** The one-second window `nowMs` falls in, and the whole seconds (at least 1) until it ends. */
export const rateWindowAt = (nowMs: number): { readonly window: number; readonly retryAfterSeconds: number } => {
  const window = Math.floor(nowMs / WINDOW_MS);
  return { window, retryAfterSeconds: Math.max(1, Math.ceil(((window + 1) * WINDOW_MS - nowMs) / 1000)) };
};

/**
 * Fixed one-second windows counted in DynamoDB, so that the limit holds across every API
 * instance (and in the local runtime alike). Counters expire by TTL a minute later.
 */
export const dynamoRateLimiter = (tableName: string, client: DynamoDBDocumentClient = dynamo()): RateLimiter => ({
  async take(buckets, nowMs) {
    const { window, retryAfterSeconds } = rateWindowAt(nowMs);
    for (const { key, limit } of buckets) {
      try {
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: rateWindowKey(key, window),
            UpdateExpression: 'ADD requests :one SET expires_at = :expires',
            ConditionExpression: 'attribute_not_exists(requests) OR requests < :limit',
            ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':expires': Math.floor(nowMs / 1000) + 60 },
          }),
        );
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return { allowed: false, retryAfterSeconds };
        throw error;
      }
    }
    return { allowed: true, retryAfterSeconds };
  },
});
