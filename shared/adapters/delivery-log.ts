import { PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { formatTimestamp } from '../domain/clock.ts';
import { dynamo } from './aws-clients.ts';
import { predictionKey } from './table-keys.ts';

export type AttemptOutcome = 'delivered' | 'failed' | 'dead_lettered';

/** One HTTP attempt at delivering a webhook. */
export interface DeliveryAttempt {
  readonly webhookId: string;
  readonly event: string;
  /** 1 for the first attempt, 2–4 for the retries. */
  readonly attempt: number;
  readonly atMs: number;
  readonly durationMs: number;
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly outcome: AttemptOutcome;
}

export interface DeliveryLog {
  record(predictionId: string, attempt: DeliveryAttempt): Promise<void>;
  /** Every attempt for the prediction, oldest first. */
  list(predictionId: string): Promise<DeliveryAttempt[]>;
}

/** Attempts live beside their prediction: same partition key, `ATTEMPT#<time>#<id>` sort keys. */
export const dynamoDeliveryLog = (tableName: string, client: DynamoDBDocumentClient = dynamo()): DeliveryLog => ({
  async record(predictionId, attempt) {
    await client.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          pk: predictionKey(predictionId).pk,
          sk: `ATTEMPT#${formatTimestamp(attempt.atMs)}#${randomUUID()}`,
          type: 'webhook_attempt',
          webhook_id: attempt.webhookId,
          event: attempt.event,
          attempt: attempt.attempt,
          at_ms: attempt.atMs,
          duration_ms: attempt.durationMs,
          status_code: attempt.statusCode,
          error: attempt.error,
          outcome: attempt.outcome,
        },
      }),
    );
  },
  async list(predictionId) {
    const attempts: DeliveryAttempt[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await client.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': predictionKey(predictionId).pk, ':prefix': 'ATTEMPT#' },
          ConsistentRead: true,
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of page.Items ?? []) {
        attempts.push({
          webhookId: String(item.webhook_id),
          event: String(item.event),
          attempt: Number(item.attempt),
          atMs: Number(item.at_ms),
          durationMs: Number(item.duration_ms),
          statusCode: typeof item.status_code === 'number' ? item.status_code : null,
          error: typeof item.error === 'string' ? item.error : null,
          outcome: item.outcome as AttemptOutcome,
        });
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return attempts.sort((a, b) => a.atMs - b.atMs);
  },
});
