import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { rateWindowAt, roomWhileBelow } from '../domain/rate-windows.ts';
import { dynamo } from './aws-clients.ts';
import { rateWindowKey } from './table-keys.ts';
import type { RateWindows } from '../ports/rate-limiter.ts';

/**
 * The one-second windows counted in DynamoDB, so that the limits hold across every API instance
 * (and in the local runtime alike). A scope's counters share one item per window, so a reservation
 * costs one conditional write, whatever it is held to. Counters expire by TTL a minute later.
 */
export const dynamoRateWindows = (tableName: string, client: DynamoDBDocumentClient = dynamo()): RateWindows => ({
  async reserve(scope, counters, permits, nowMs) {
    // A window with nothing counted yet has room for them only if the limit does.
    if (counters.some(({ limit }) => roomWhileBelow(limit, permits) <= 0)) return false;
    const { window } = rateWindowAt(nowMs);
    const names = Object.fromEntries(counters.map(({ key }, i) => [`#c${i}`, key]));
    const below = Object.fromEntries(counters.map(({ limit }, i) => [`:b${i}`, roomWhileBelow(limit, permits)]));
    try {
      await client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: rateWindowKey(scope, window),
          UpdateExpression: `ADD ${counters.map((_, i) => `#c${i} :permits`).join(', ')} SET expires_at = :expires`,
          ConditionExpression: counters
            .map((_, i) => `(attribute_not_exists(#c${i}) OR #c${i} < :b${i})`)
            .join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ':permits': permits, ':expires': Math.floor(nowMs / 1000) + 60, ...below },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  },
});
