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
 * instance (and in the local runtime alike). A scope's counters share one item per window, so a
 * request costs one conditional write, whatever it is held to. Counters expire by TTL a minute later.
 */
export const dynamoRateLimiter = (tableName: string, client: DynamoDBDocumentClient = dynamo()): RateLimiter => ({
  async take(scope, counters, nowMs) {
    const { window, retryAfterSeconds } = rateWindowAt(nowMs);
    const names = Object.fromEntries(counters.map(({ key }, i) => [`#c${i}`, key]));
    const limits = Object.fromEntries(counters.map(({ limit }, i) => [`:l${i}`, limit]));
    try {
      await client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: rateWindowKey(scope, window),
          UpdateExpression: `ADD ${counters.map((_, i) => `#c${i} :one`).join(', ')} SET expires_at = :expires`,
          ConditionExpression: counters
            .map((_, i) => `(attribute_not_exists(#c${i}) OR #c${i} < :l${i})`)
            .join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ':one': 1, ':expires': Math.floor(nowMs / 1000) + 60, ...limits },
        }),
      );
      return { allowed: true, retryAfterSeconds };
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return { allowed: false, retryAfterSeconds };
      throw error;
    }
  },
});
