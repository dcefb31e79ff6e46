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
import * as z from '../zod-mini.ts';
import { reservationOf, reservationRefusal, settlementOf } from '../domain/billing.ts';
import type { PredictionId } from '../domain/ids.ts';
import type { PriorClaim } from '../domain/idempotency.ts';
import { ACTIVE_STATUSES, isTerminal, TERMINAL_STATUSES, type Prediction } from '../domain/prediction.ts';
import { DEFAULT_RETENTION_SECONDS, readAt, recordExpired, retentionFrom } from '../domain/retention.ts';
import { keepLogTail, keepProgress, keepStreamed } from '../domain/run-report.ts';
import { err, ok } from '../domain/result.ts';
import type { PredictionStore } from '../ports/prediction-store.ts';
import {
  limitOfAccountItem,
  openMonth,
  reservationStateOf,
  reservationUpdate,
  settlementUpdate,
  type RawAccountItem,
} from './account-moves.ts';
import { dynamo } from './aws-clients.ts';
import { claimWaitingUpdate } from './claim-write.ts';
import { idempotencyClaimPut, readLiveClaim } from './idempotency-record.ts';
import { queryOwnedPredictions } from './owned-predictions.ts';
import { fromItem, retentionItemFields, retentionOfItem, toItem } from './prediction-item.ts';
import {
  dataRemovalIndexKey,
  dataShardKey,
  predictionIdOfKey,
  predictionKey,
  SWEEP_INDEX,
  sweepIndexKey,
  SWEEP_SHARDS,
  sweepShardKey,
} from './table-keys.ts';

/** Where it was imported from before the retention rules moved to the domain. */
/** Pauses (jittered) before an insert is tried again after a transaction conflict: brief, since a create waits on it. */
const INSERT_RETRY_PAUSES_MS = [20, 50, 100, 200, 400];

/**
 * An ended prediction's retention, as the domain sets it from the time of its end, and its place
 * in the sweeper's index for its data's removal once nothing else is owed.
 */
const retentionFields = (next: Prediction, nowMs: number, retentionSeconds: number): Record<string, unknown> => {
  if (!isTerminal(next)) return {};
  const retention = retentionFrom(nowMs, retentionSeconds);
  return {
    ...retentionItemFields(retention),
    ...(next.sweepAtMs === null ? dataRemovalIndexKey(next.id, retention.dataExpiresAtMs) : {}),
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
  /** How long an ended prediction's data is kept (the domain's retention rules say what follows from it). */
  retentionSeconds: number = DEFAULT_RETENTION_SECONDS,
  /** The clock that decides what has expired and when kept data is due for removal (a test sets its own). */
  now: () => number = Date.now,
): PredictionStore => ({
  async insert(prediction, limitKopecks, claim = null) {
    const priorClaim = async () => (claim === null ? null : readLiveClaim(client, tableName, prediction.owner, claim));
    const keyTaken = (prior: PriorClaim) => ok({ kind: 'key_taken', prior } as const);
    const reservation = reservationOf(prediction.hold, limitKopecks);
    if (!reservation.ok) {
      const prior = await priorClaim();
      return prior ? keyTaken(prior) : err(reservation.error);
    }
    const { month } = reservation.value.moves;
    const reserve = () =>
      client.send(
        new TransactWriteCommand({
          TransactItems: [
            reservationUpdate(tableName, prediction.owner, reservation.value),
            {
              Put: { TableName: tableName, Item: toItem(prediction), ConditionExpression: 'attribute_not_exists(pk)' },
            },
            ...(claim === null ? [] : [idempotencyClaimPut(tableName, prediction.owner, prediction.id, claim)]),
          ],
        }),
      );
    let monthOpened = false;
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
        const reasons = error.CancellationReasons ?? [];
        const codes = reasons.map((reason) => reason.Code);
        const [account, , claimed] = codes;
        if (account === 'ConditionalCheckFailed') {
          // Which of the domain's checks failed, read from the account as the condition found it.
          const item = reasons[0]?.Item as RawAccountItem | undefined;
          if (item === undefined || limitOfAccountItem(item) !== reservation.value.limitKopecks)
            return ok({ kind: 'limit_changed' } as const);
          const state = reservationStateOf(item, month);
          if (state.committedKopecks === null && !monthOpened) {
            monthOpened = true;
            await openMonth(client, tableName, prediction.owner, month, item);
            continue;
          }
          const refusal =
            state.committedKopecks === null
              ? null
              : reservationRefusal(reservation.value, {
                  availableKopecks: state.availableKopecks,
                  committedKopecks: state.committedKopecks,
                });
          if (refusal === null) throw error;
          return err(refusal);
        }
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
    // TTL deletes expired items days late, and the sweeper removes expired data a while late:
    // the domain says how the prediction reads now, whatever has been deleted yet.
    return Item ? readAt(fromItem(Item), retentionOfItem(Item), now()) : null;
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
    if (!Item || recordExpired(retentionOfItem(Item).recordExpiresAtSeconds, now())) return null;
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
    const settlement = settlementOf(next, expected);
    const write = () =>
      settlement === null
        ? client.send(new PutCommand(put))
        : client.send(
            new TransactWriteCommand({
              TransactItems: [{ Put: put }, settlementUpdate(tableName, next.owner, settlement)],
            }),
          );
    for (let monthOpened = false; ; monthOpened = true) {
      try {
        await write();
        return true;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return false;
        if (!(error instanceof TransactionCanceledException) || settlement === null) throw error;
        const [prediction, account] = error.CancellationReasons ?? [];
        if (prediction?.Code === 'ConditionalCheckFailed') return false;
        // The hold's month is not open on the account item: a prediction held before the item
        // counted months (its spend item did), or so long ago that its count was dropped.
        if (account?.Code !== 'ConditionalCheckFailed' || monthOpened) throw error;
        await openMonth(client, tableName, next.owner, settlement.month, account.Item ?? {});
      }
    }
  },
  async claimWaiting(id, terms) {
    try {
      const { Attributes } = await client.send(new UpdateCommand(claimWaitingUpdate(tableName, id, terms)));
      const claimed = Attributes ? fromItem(Attributes) : null;
      return claimed?.status === 'processing' ? claimed : null;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return null;
      throw error;
    }
  },
  async lookAgainAt(expected, sweepAtMs) {
    const unchanged = unchangedSince(expected);
    const entry = sweepIndexKey(expected.id, sweepAtMs);
    try {
      await client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: predictionKey(expected.id),
          UpdateExpression: `SET ${SWEEP_INDEX.partition} = :shard, ${SWEEP_INDEX.sort} = :at`,
          ...unchanged,
          ExpressionAttributeValues: {
            ...unchanged.ExpressionAttributeValues,
            ':shard': entry.sweep_shard,
            ':at': entry.sweep_at,
          },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  },
  async recordRun(id, claim, run) {
    const values: Record<string, unknown> = {
      ...(run.progress === undefined ? {} : { ':progress': keepProgress(run.progress) }),
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
                  ':fallback': retentionFrom(now(), retentionSeconds).dataExpiresAtMs,
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
          UpdateExpression: `SET input_json = :empty, logs = :blank, data_removed = :removed REMOVE #input, input_key, input_bytes, #output, output_json, output_key, output_bytes, streamed, ${SWEEP_INDEX.partition}, ${SWEEP_INDEX.sort}`,
          // The domain's `dataExpired` at `nowMs`, checked in the write itself.
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
    const predictions: Prediction[] = [];
    const unreadable: { key: string; problem: string }[] = [];
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
    for await (const page of pages)
      for (const item of page.Items ?? []) {
        try {
          predictions.push(fromItem(item));
        } catch (error) {
          const problem = error instanceof z.$ZodError ? z.prettifyError(error).replace(/\n/g, ' ') : String(error);
          unreadable.push({ key: String(item.pk ?? item.id ?? '(no key)'), problem });
        }
      }
    return { predictions, unreadable };
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
