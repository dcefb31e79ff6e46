import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
  paginateQuery,
} from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { formatTimestamp } from '../domain/clock.ts';
import type { AccountId } from '../domain/ids.ts';
import { DEFAULT_RETENTION_SECONDS, retentionFrom } from '../domain/retention.ts';
import { dynamo } from './aws-clients.ts';
import {
  ATTEMPT_PREFIX,
  attemptKey,
  DELIVERY_INDEX,
  DELIVERY_SHARDS,
  deliveryIndexKey,
  deliveryShardKey,
  predictionKey,
} from './table-keys.ts';
import type { AttemptOutcome, DeliveryAttempt, AccountDeliveriesPage, DeliveryLog } from '../ports/delivery-log.ts';

const attemptOf = (item: Record<string, unknown>): DeliveryAttempt => ({
  id: String(item.sk).split('#').at(-1) ?? '',
  webhookId: String(item.webhook_id),
  event: String(item.event),
  attempt: Number(item.attempt),
  atMs: Number(item.at_ms),
  durationMs: Number(item.duration_ms),
  statusCode: typeof item.status_code === 'number' ? item.status_code : null,
  error: typeof item.error === 'string' ? item.error : null,
  outcome: item.outcome as AttemptOutcome,
});

/**
 * A shard's newest `limit` attempts older than `before`: one query unless DynamoDB's 1 MB page cuts
 * it. An attempt past its expiry is left out: TTL deletes it, but only within days.
 */
const newestOfShard = async (
  client: DynamoDBDocumentClient,
  tableName: string,
  shard: string,
  before: string | null,
  limit: number,
  nowMs: number,
) => {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: DELIVERY_INDEX.name,
        KeyConditionExpression: `#shard = :shard${before === null ? '' : ' AND #at < :before'}`,
        ExpressionAttributeNames: {
          '#shard': DELIVERY_INDEX.partition,
          ...(before === null ? {} : { '#at': DELIVERY_INDEX.sort }),
        },
        FilterExpression: 'attribute_not_exists(expires_at) OR expires_at > :now',
        ExpressionAttributeValues: {
          ':shard': shard,
          ':now': Math.floor(nowMs / 1000),
          ...(before === null ? {} : { ':before': before }),
        },
        ScanIndexForward: false,
        Limit: limit - items.length,
        ExclusiveStartKey: startKey,
      }),
    );
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey && items.length < limit);
  return items;
};

/**
 * The account's attempts newest first: every shard's newest (one more than the page, to know
 * whether anything is left), merged. The position is the index's sort key, the same in every
 * shard, so the next page starts below it in each.
 */
const queryAccountDeliveries = async (
  client: DynamoDBDocumentClient,
  tableName: string,
  account: AccountId,
  { before, limit, nowMs }: { readonly before: string | null; readonly limit: number; readonly nowMs: number },
): Promise<AccountDeliveriesPage> => {
  const shards = Array.from({ length: DELIVERY_SHARDS }, (_, shard) => deliveryShardKey(account, shard));
  const found = (
    await Promise.all(shards.map((shard) => newestOfShard(client, tableName, shard, before, limit + 1, nowMs)))
  ).flat();
  const positionOf = (item: Record<string, unknown>) => String(item[DELIVERY_INDEX.sort]);
  // By code units, as DynamoDB orders the sort key (localeCompare may skip the `-` of ids).
  const newestFirst = found.sort((a, b) =>
    positionOf(a) < positionOf(b) ? 1 : positionOf(a) > positionOf(b) ? -1 : 0,
  );
  const taken = newestFirst.slice(0, limit);
  const last = taken.at(-1);
  return {
    attempts: taken.map((item) => ({
      ...attemptOf(item),
      predictionId: String(item.prediction_id),
      model: typeof item.model === 'string' ? item.model : null,
    })),
    older: newestFirst.length > limit && last ? positionOf(last) : null,
  };
};

/**
 * Attempts live beside their prediction (same partition key, `ATTEMPT#<time>#<id>` sort keys),
 * and in the account's delivery index (table-keys.ts, DELIVERY_INDEX). They expire (TTL) as long
 * after they were made as their prediction's record after its end: the retention period, then the
 * time the record outlives its data.
 */
export const dynamoDeliveryLog = (
  tableName: string,
  client: DynamoDBDocumentClient = dynamo(),
  retentionSeconds: number = DEFAULT_RETENTION_SECONDS,
): DeliveryLog => ({
  async record(prediction, attempt) {
    const at = formatTimestamp(attempt.atMs);
    const attemptId = randomUUID();
    await client.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          ...attemptKey(prediction.id, at, attemptId),
          ...deliveryIndexKey(prediction.owner, at, attemptId),
          type: 'webhook_attempt',
          prediction_id: prediction.id,
          model: prediction.model,
          webhook_id: attempt.webhookId,
          event: attempt.event,
          attempt: attempt.attempt,
          at_ms: attempt.atMs,
          duration_ms: attempt.durationMs,
          status_code: attempt.statusCode,
          error: attempt.error,
          outcome: attempt.outcome,
          expires_at: retentionFrom(attempt.atMs, retentionSeconds).recordExpiresAtSeconds,
        },
      }),
    );
  },
  async list(predictionId) {
    const attempts: DeliveryAttempt[] = [];
    const pages = paginateQuery(
      { client },
      {
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': predictionKey(predictionId).pk, ':prefix': ATTEMPT_PREFIX },
        ConsistentRead: true,
      },
    );
    for await (const page of pages) attempts.push(...(page.Items ?? []).map(attemptOf));
    return attempts.sort((a, b) => a.atMs - b.atMs);
  },
  listForAccount: (account, page) => queryAccountDeliveries(client, tableName, account, page),
  async claimRedelivery(predictionId, attempt, atMs) {
    try {
      await client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: attemptKey(predictionId, formatTimestamp(attempt.atMs), attempt.id),
          UpdateExpression: 'SET redelivered_at_ms = :at',
          ConditionExpression: 'attribute_exists(pk) AND outcome = :dead AND attribute_not_exists(redelivered_at_ms)',
          ExpressionAttributeValues: { ':at': atMs, ':dead': 'dead_lettered' satisfies AttemptOutcome },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  },
  async releaseRedelivery(predictionId, attempt) {
    await client
      .send(
        new UpdateCommand({
          TableName: tableName,
          Key: attemptKey(predictionId, formatTimestamp(attempt.atMs), attempt.id),
          UpdateExpression: 'REMOVE redelivered_at_ms',
          // Never makes an attempt that is gone (expired) again.
          ConditionExpression: 'attribute_exists(pk)',
        }),
      )
      .catch((error: unknown) => {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      });
  },
});
