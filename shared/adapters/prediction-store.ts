import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
  paginateScan,
} from '@aws-sdk/lib-dynamodb';
import { setTimeout as sleep } from 'node:timers/promises';
import { maxCommittedFor } from '../domain/billing.ts';
import { PrognozError } from '../domain/errors.ts';
import type { PredictionId } from '../domain/ids.ts';
import type { PriorClaim } from '../domain/idempotency.ts';
import { z } from 'zod';
import {
  ACTIVE_STATUSES,
  isTerminal,
  TERMINAL_STATUSES,
  withDataRemoved,
  type Prediction,
} from '../domain/prediction.ts';
import { keepLogTail, keepStreamed } from '../domain/run-report.ts';
import { err, ok } from '../domain/result.ts';
import type { PredictionStore } from '../ports/prediction-store.ts';
import { dynamo } from './aws-clients.ts';
import { idempotencyClaimPut, readLiveClaim } from './idempotency-record.ts';
import { queryOwnedPredictions } from './owned-predictions.ts';
import { fromItem, toItem } from './prediction-item.ts';
import {
  accountKey,
  dataRemovalIndexKey,
  dataShardKey,
  predictionIdOfKey,
  predictionKey,
  spendKey,
  SWEEP_INDEX,
  SWEEP_SHARDS,
  sweepShardKey,
} from './table-keys.ts';

/** Days a finished prediction (its input and output with it) is kept: PROGNOZ_RETENTION_DAYS, default 30. */
export const retentionSecondsFromEnv = (env: NodeJS.ProcessEnv = process.env): number =>
  Math.round(Number(env.PROGNOZ_RETENTION_DAYS ?? 30) * 86_400);

/** Pauses (jittered) before an insert is tried again after a transaction conflict: brief, since a create waits on it. */
const INSERT_RETRY_PAUSES_MS = [20, 50, 100, 200, 400];

const expired = (item: Record<string, unknown>, nowMs: number): boolean =>
  typeof item.expires_at === 'number' && item.expires_at * 1000 <= nowMs;

/** How long an ended prediction's record (status, times, cost) outlives its data: it then reads `data_removed`. */
export const RECORD_KEPT_AFTER_DATA_SECONDS = 30 * 86_400;

const dataExpired = (item: Record<string, unknown>, nowMs: number): boolean =>
  typeof item.data_expires_at_ms === 'number' && item.data_expires_at_ms <= nowMs && item.data_removed !== true;

/**
 * An ended prediction's retention: its data is removed (by the sweeper, which the index brings
 * it to then) when the retention period is over, its record a while later by TTL.
 */
const retentionFields = (next: Prediction, nowMs: number, retentionSeconds: number): Record<string, unknown> => {
  if (!isTerminal(next)) return {};
  const dataExpiresMs = nowMs + retentionSeconds * 1000;
  return {
    data_expires_at_ms: dataExpiresMs,
    expires_at: Math.floor(dataExpiresMs / 1000) + RECORD_KEPT_AFTER_DATA_SECONDS,
    ...(next.sweepAtMs === null ? dataRemovalIndexKey(next.id, dataExpiresMs) : {}),
  };
};

/** Ids whose time in one family of the sweeper's index shards has come, oldest first per shard. */
const dueIn = async (
  client: DynamoDBDocumentClient,
  tableName: string,
  shardKey: (shard: number) => string,
  nowMs: number,
  limit: number,
): Promise<PredictionId[]> => {
  const pages = await Promise.all(
    Array.from({ length: SWEEP_SHARDS }, (_, shard) =>
      client.send(
        new QueryCommand({
          TableName: tableName,
          IndexName: SWEEP_INDEX.name,
          KeyConditionExpression: '#shard = :shard AND #at <= :now',
          ExpressionAttributeNames: { '#shard': SWEEP_INDEX.partition, '#at': SWEEP_INDEX.sort },
          ExpressionAttributeValues: { ':shard': shardKey(shard), ':now': nowMs },
          ProjectionExpression: 'pk',
          Limit: Math.max(1, Math.ceil(limit / SWEEP_SHARDS)),
        }),
      ),
    ),
  );
  return pages.flatMap((page) => (page.Items ?? []).map((item) => predictionIdOfKey(String(item.pk)))).slice(0, limit);
};

export const dynamoPredictionStore = (
  tableName: string,
  client: DynamoDBDocumentClient = dynamo(),
  retentionSeconds: number = retentionSecondsFromEnv(),
  /** The clock that decides what has expired and when kept data is due for removal (a test sets its own). */
  now: () => number = Date.now,
): PredictionStore => ({
  async insert(prediction, limitKopecks, claim = null) {
    const { kopecks: hold, month } = prediction.hold;
    const maxCommitted = maxCommittedFor(limitKopecks, hold);
    const limitReached = new PrognozError(
      'monthly_limit_reached',
      "this month's spending limit is reached; raise it or wait for next month",
    );
    const priorClaim = async () => (claim === null ? null : readLiveClaim(client, tableName, prediction.owner, claim));
    const keyTaken = (prior: PriorClaim) => ok({ kind: 'key_taken', prior } as const);
    if (maxCommitted !== null && maxCommitted < 0) {
      const prior = await priorClaim();
      return prior ? keyTaken(prior) : err(limitReached);
    }
    const reserve = () =>
      client.send(
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
                ExpressionAttributeValues: {
                  ':hold': hold,
                  ':spend': 'spend',
                  ...(maxCommitted === null ? {} : { ':max': maxCommitted }),
                },
              },
            },
            {
              Put: { TableName: tableName, Item: toItem(prediction), ConditionExpression: 'attribute_not_exists(pk)' },
            },
            ...(claim === null ? [] : [idempotencyClaimPut(tableName, prediction.owner, prediction.id, claim)]),
          ],
        }),
      );
    for (let attempt = 0; ; attempt++) {
      try {
        await reserve();
        return ok({ kind: 'inserted' } as const);
      } catch (error) {
        if (!(error instanceof TransactionCanceledException)) throw error;
        // A live claim on the key decides whatever else failed: a repeat is answered even when
        // the first create's hold took the last of the funds.
        const prior = await priorClaim();
        if (prior) return keyTaken(prior);
        const codes = (error.CancellationReasons ?? []).map((reason) => reason.Code);
        const [account, spend, , claimed] = codes;
        if (account === 'ConditionalCheckFailed')
          return err(
            new PrognozError(
              'insufficient_funds',
              'the account has not enough funds left to start this prediction; top it up',
            ),
          );
        if (spend === 'ConditionalCheckFailed') return err(limitReached);
        // Nothing was written. Another create on this account or key was mid-transaction, or the
        // claim that stood in the way has expired since: the next try decides.
        const pause = INSERT_RETRY_PAUSES_MS[attempt];
        if (pause === undefined || !(codes.includes('TransactionConflict') || claimed === 'ConditionalCheckFailed'))
          throw error;
        await sleep(pause * (0.5 + Math.random()));
      }
    }
  },
  async get(id) {
    const { Item } = await client.send(
      new GetCommand({ TableName: tableName, Key: predictionKey(id), ConsistentRead: true }),
    );
    // TTL deletes expired items days late: an expired prediction is gone as far as anyone can see,
    // and one whose data has expired reads without it, whether or not the sweeper has been by.
    if (!Item || expired(Item, now())) return null;
    const prediction = fromItem(Item);
    return isTerminal(prediction) && dataExpired(Item, now()) ? withDataRemoved(prediction) : prediction;
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
    if (!Item || expired(Item, now())) return null;
    return {
      status: z.enum([...ACTIVE_STATUSES, ...TERMINAL_STATUSES]).parse(Item.status),
      claim: typeof Item.claim === 'string' ? Item.claim : null,
    };
  },
  async replace(next, expected) {
    const put = {
      TableName: tableName,
      Item: { ...toItem(next), ...retentionFields(next, now(), retentionSeconds) },
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
      if (
        error instanceof TransactionCanceledException &&
        error.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed'
      )
        return false;
      throw error;
    }
  },
  async recordRun(id, claim, run) {
    const values: Record<string, unknown> = {
      ...(run.progress === undefined ? {} : { ':progress': Math.min(1, Math.max(0, run.progress)) }),
      ...(run.logs === undefined ? {} : { ':logs': keepLogTail(run.logs) }),
      ...(run.streamed === undefined ? {} : { ':streamed': run.streamed === null ? null : keepStreamed(run.streamed) }),
    };
    if (Object.keys(values).length === 0) throw new Error('recordRun: nothing to record');
    try {
      await client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: predictionKey(id),
          UpdateExpression: `SET ${Object.keys(values)
            .map((name) => `${name.slice(1)} = ${name}`)
            .join(', ')}`,
          ConditionExpression: '#status = :processing AND claim = :claim',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ...values, ':processing': 'processing', ':claim': claim },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  },
  async effectsDone(settled) {
    try {
      await client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: predictionKey(settled.id),
          // With nothing owed, it stays in the sweeper's index only for the removal of its data.
          UpdateExpression:
            settled.sweepAtMs === null
              ? `SET effects = :remaining, ${SWEEP_INDEX.partition} = :dataShard, ${SWEEP_INDEX.sort} = if_not_exists(data_expires_at_ms, :fallback)`
              : 'SET effects = :remaining',
          ConditionExpression: '#status = :status',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':remaining': settled.effects,
            ':status': settled.status,
            ...(settled.sweepAtMs === null
              ? {
                  ':fallback': now() + retentionSeconds * 1000,
                  ':dataShard': dataRemovalIndexKey(settled.id, 0).sweep_shard,
                }
              : {}),
          },
        }),
      );
    } catch (error) {
      // Gone (expired and deleted): nothing is owed any more.
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  },
  async removeData(id, nowMs) {
    try {
      await client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: predictionKey(id),
          UpdateExpression: `SET input_json = :empty, logs = :blank, data_removed = :removed REMOVE #input, #output, output_json, output_key, output_bytes, streamed, ${SWEEP_INDEX.partition}, ${SWEEP_INDEX.sort}`,
          ConditionExpression:
            'data_expires_at_ms <= :now AND (attribute_not_exists(data_removed) OR data_removed = :kept)',
          ExpressionAttributeNames: { '#input': 'input', '#output': 'output' },
          ExpressionAttributeValues: { ':empty': '{}', ':blank': '', ':removed': true, ':kept': false, ':now': nowMs },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  },
  due: (nowMs, limit) => dueIn(client, tableName, sweepShardKey, nowMs, limit),
  dataDue: (nowMs, limit) => dueIn(client, tableName, dataShardKey, nowMs, limit),
  async listActive() {
    const found: Prediction[] = [];
    const pages = paginateScan(
      { client },
      {
        TableName: tableName,
        FilterExpression: '#type = :prediction AND NOT #status IN (:s0, :s1, :s2)',
        ExpressionAttributeNames: { '#type': 'type', '#status': 'status' },
        ExpressionAttributeValues: {
          ':prediction': 'prediction',
          ...Object.fromEntries(TERMINAL_STATUSES.map((status, i) => [`:s${i}`, status])),
        },
      },
    );
    for await (const page of pages) found.push(...(page.Items ?? []).map(fromItem));
    return found;
  },
  listOwned(owner, query) {
    return queryOwnedPredictions(client, tableName, owner, query, now());
  },
});

/** The condition that the stored prediction is still the one a decision was made on. */
const unchangedSince = (expected: Prediction) => {
  const attempts =
    expected.attempts === 0 ? '(attribute_not_exists(attempts) OR attempts = :attempts)' : 'attempts = :attempts';
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
