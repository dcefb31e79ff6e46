import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand, ScanCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { maxCommittedFor } from '../domain/billing.ts';
import { PrognozError } from '../domain/errors.ts';
import type { PredictionId } from '../domain/ids.ts';
import { z } from 'zod';
import { ACTIVE_STATUSES, isTerminal, TERMINAL_STATUSES, type Prediction } from '../domain/prediction.ts';
import { err, ok } from '../domain/result.ts';
import type { PredictionStore } from '../ports/prediction-store.ts';
import { dynamo } from './aws-clients.ts';
import { fromItem, toItem } from './prediction-item.ts';
import { accountKey, predictionIdOfKey, predictionKey, spendKey, SWEEP_INDEX, SWEEP_SHARDS, sweepShardKey } from './table-keys.ts';

export type { PredictionStore } from '../ports/prediction-store.ts';

/** Days a finished prediction (its input and output with it) is kept: PROGNOZ_RETENTION_DAYS, default 30. */
export const retentionSecondsFromEnv = (env: NodeJS.ProcessEnv = process.env): number => Math.round(Number(env.PROGNOZ_RETENTION_DAYS ?? 30) * 86_400);

const expired = (item: Record<string, unknown>, nowMs: number): boolean =>
  typeof item.expires_at === 'number' && item.expires_at * 1000 <= nowMs;

export const dynamoPredictionStore = (
  tableName: string,
  client: DynamoDBDocumentClient = dynamo(),
  retentionSeconds: number = retentionSecondsFromEnv(),
): PredictionStore => ({
  async insert(prediction, limitKopecks) {
    const { kopecks: hold, month } = prediction.hold;
    const maxCommitted = maxCommittedFor(limitKopecks, hold);
    const limitReached = new PrognozError('monthly_limit_reached', "this month's spending limit is reached; raise it or wait for next month");
    if (maxCommitted !== null && maxCommitted < 0) return err(limitReached);
    try {
      await client.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: tableName,
                Key: accountKey(prediction.owner),
                UpdateExpression: 'ADD available_kopecks :negativeHold',
                ConditionExpression: 'available_kopecks >= :hold',
                ExpressionAttributeValues: { ':hold': hold, ':negativeHold': -hold },
              },
            },
            {
              Update: {
                TableName: tableName,
                Key: spendKey(prediction.owner, month),
                UpdateExpression: 'ADD committed_kopecks :hold SET #type = :spend',
                ...(maxCommitted === null
                  ? {}
                  : { ConditionExpression: 'attribute_not_exists(committed_kopecks) OR committed_kopecks <= :max' }),
                ExpressionAttributeNames: { '#type': 'type' },
                ExpressionAttributeValues: { ':hold': hold, ':spend': 'spend', ...(maxCommitted === null ? {} : { ':max': maxCommitted }) },
              },
            },
            { Put: { TableName: tableName, Item: toItem(prediction), ConditionExpression: 'attribute_not_exists(pk)' } },
          ],
        }),
      );
      return ok(undefined);
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const [account, spend] = (error.CancellationReasons ?? []).map((reason) => reason.Code === 'ConditionalCheckFailed');
      if (account) return err(new PrognozError('insufficient_funds', 'the account has not enough funds left to start this prediction; top it up'));
      if (spend) return err(limitReached);
      throw error;
    }
  },
  async get(id) {
    const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: predictionKey(id), ConsistentRead: true }));
    // TTL deletes expired items days late: an expired prediction is gone as far as anyone can see.
    return Item && !expired(Item, Date.now()) ? fromItem(Item) : null;
  },
  async statusOf(id) {
    const { Item } = await client.send(
      new GetCommand({
        TableName: tableName,
        Key: predictionKey(id),
        ProjectionExpression: '#status, claim, expires_at',
        ExpressionAttributeNames: { '#status': 'status' },
        // Consistent: a stale read just after the claim would look like a takeover and stop the run.
        ConsistentRead: true,
      }),
    );
    if (!Item || expired(Item, Date.now())) return null;
    return { status: z.enum([...ACTIVE_STATUSES, ...TERMINAL_STATUSES]).parse(Item.status), claim: typeof Item.claim === 'string' ? Item.claim : null };
  },
  async replace(next, expected) {
    const put = {
      TableName: tableName,
      Item: { ...toItem(next), ...(isTerminal(next) ? { expires_at: Math.floor(Date.now() / 1000) + retentionSeconds } : {}) },
      ...unchangedSince(expected),
    };
    try {
      if (!isTerminal(next)) {
        await client.send(new PutCommand(put));
        return true;
      }
      const cost = next.costKopecks;
      const { kopecks: hold, month } = next.hold;
      await client.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: put },
            {
              Update: {
                TableName: tableName,
                Key: accountKey(next.owner),
                UpdateExpression: 'ADD balance_kopecks :negativeCost, available_kopecks :release',
                ExpressionAttributeValues: { ':negativeCost': -cost, ':release': hold - cost },
              },
            },
            {
              Update: {
                TableName: tableName,
                Key: spendKey(next.owner, month),
                UpdateExpression: 'ADD spent_kopecks :cost, committed_kopecks :release',
                ExpressionAttributeValues: { ':cost': cost, ':release': cost - hold },
              },
            },
          ],
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      if (error instanceof TransactionCanceledException && error.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed') return false;
      throw error;
    }
  },
  async recordProgress(id, claim, fraction) {
    try {
      await client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: predictionKey(id),
          UpdateExpression: 'SET progress = :progress',
          ConditionExpression: '#status = :processing AND claim = :claim',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':progress': Math.min(1, Math.max(0, fraction)), ':processing': 'processing', ':claim': claim },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  },
  async effectsDone(settled) {
    try {
      await client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: predictionKey(settled.id),
          UpdateExpression: settled.sweepAtMs === null ? `SET effects = :remaining REMOVE ${SWEEP_INDEX.partition}, ${SWEEP_INDEX.sort}` : 'SET effects = :remaining',
          ConditionExpression: '#status = :status',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':remaining': settled.effects, ':status': settled.status },
        }),
      );
    } catch (error) {
      // Gone (expired and deleted): nothing is owed any more.
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  },
  async due(nowMs, limit) {
    const pages = await Promise.all(
      Array.from({ length: SWEEP_SHARDS }, (_, shard) =>
        client.send(
          new QueryCommand({
            TableName: tableName,
            IndexName: SWEEP_INDEX.name,
            KeyConditionExpression: '#shard = :shard AND #at <= :now',
            ExpressionAttributeNames: { '#shard': SWEEP_INDEX.partition, '#at': SWEEP_INDEX.sort },
            ExpressionAttributeValues: { ':shard': sweepShardKey(shard), ':now': nowMs },
            ProjectionExpression: 'pk',
            Limit: Math.max(1, Math.ceil(limit / SWEEP_SHARDS)),
          }),
        ),
      ),
    );
    return pages.flatMap((page) => (page.Items ?? []).map((item) => predictionIdOfKey(String(item.pk)) as PredictionId)).slice(0, limit);
  },
  async listActive() {
    const found: Prediction[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await client.send(
        new ScanCommand({
          TableName: tableName,
          ExclusiveStartKey: startKey,
          FilterExpression: '#type = :prediction AND NOT #status IN (:s0, :s1, :s2)',
          ExpressionAttributeNames: { '#type': 'type', '#status': 'status' },
          ExpressionAttributeValues: {
            ':prediction': 'prediction',
            ...Object.fromEntries(TERMINAL_STATUSES.map((status, i) => [`:s${i}`, status])),
          },
        }),
      );
      found.push(...(page.Items ?? []).map(fromItem));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return found;
  },
});


/** The condition that the stored prediction is still the one a decision was made on. */
const unchangedSince = (expected: Prediction) => {
  const attempts = expected.attempts === 0 ? '(attribute_not_exists(attempts) OR attempts = :attempts)' : 'attempts = :attempts';
  const claim = expected.status === 'processing' ? ' AND claim = :claim' : '';
  return {
    ConditionExpression: `#status = :expected AND ${attempts}${claim}`,
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ':expected': expected.status,
      ':attempts': expected.attempts,
      ...(expected.status === 'processing' ? { ':claim': expected.claim } : {}),
    },
  };
};
