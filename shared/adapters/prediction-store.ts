import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, ScanCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import type { AccountId, PredictionId } from '../domain/ids.ts';
import { TERMINAL_STATUSES, type Prediction, type PredictionStatus } from '../domain/prediction.ts';
import { dynamo } from './aws-clients.ts';
import { ownerIndexKey, predictionKey } from './table-keys.ts';

/** The port through which everything reads and writes predictions. */
export interface PredictionStore {
  insert(prediction: Prediction): Promise<void>;
  get(id: PredictionId): Promise<Prediction | null>;
  /** Writes `next` only if the stored status is still `expected`; false when it was not. */
  replace(next: Prediction, expected: PredictionStatus): Promise<boolean>;
  /** Records the model's progress on a prediction that is still processing. */
  recordProgress(id: PredictionId, fraction: number): Promise<void>;
  /** Every prediction not yet in a terminal status (a full scan: for local recovery only). */
  listActive(): Promise<Prediction[]>;
}

const base = {
  id: z.uuid(),
  model: z.string(),
  owner: z.string(),
  input: z.record(z.string(), z.unknown()),
  webhook: z.string().nullable(),
  source: z.literal('api'),
  created_at: z.string(),
};
const finishedFields = {
  started_at: z.string().nullable(),
  completed_at: z.string().nullable(),
  runtime_ms: z.number().int().nullable(),
  cost_kopecks: z.number().int(),
};

const predictionItem = z.discriminatedUnion('status', [
  z.object({ ...base, status: z.enum(['pending', 'starting', 'queued']) }),
  z.object({ ...base, status: z.literal('processing'), started_at: z.string(), attempts: z.number().int(), progress: z.number().min(0).max(1).nullish() }),
  z.object({ ...base, ...finishedFields, status: z.literal('succeeded'), output: z.unknown(), runtime_ms: z.number().int() }),
  z.object({ ...base, ...finishedFields, status: z.literal('failed'), error: z.string() }),
  z.object({ ...base, ...finishedFields, status: z.literal('canceled') }),
]);

const toItem = (p: Prediction): Record<string, unknown> => {
  const common = {
    ...predictionKey(p.id),
    ...ownerIndexKey(p.owner, p.createdAt),
    type: 'prediction',
    id: p.id,
    model: p.model,
    owner: p.owner,
    input: p.input,
    webhook: p.webhook,
    source: p.source,
    created_at: p.createdAt,
    status: p.status,
    started_at: p.startedAt,
  };
  switch (p.status) {
    case 'pending':
    case 'starting':
    case 'queued':
      return common;
    case 'processing':
      return { ...common, attempts: p.attempts, progress: p.progress };
    case 'succeeded':
    case 'failed':
    case 'canceled':
      return {
        ...common,
        completed_at: p.completedAt,
        runtime_ms: p.runtimeMs,
        cost_kopecks: p.costKopecks,
        ...(p.status === 'succeeded' ? { output: p.output } : {}),
        ...(p.status === 'failed' ? { error: p.error } : {}),
      };
  }
};

const fromItem = (item: Record<string, unknown>): Prediction => {
  const i = predictionItem.parse(item);
  const common = {
    id: i.id as PredictionId,
    model: i.model,
    owner: i.owner as AccountId,
    input: i.input,
    webhook: i.webhook,
    source: i.source,
    createdAt: i.created_at,
  };
  switch (i.status) {
    case 'pending':
    case 'starting':
    case 'queued':
      return { ...common, status: i.status, startedAt: null };
    case 'processing':
      return { ...common, status: i.status, startedAt: i.started_at, attempts: i.attempts, progress: i.progress ?? null };
    case 'succeeded':
    case 'failed':
    case 'canceled': {
      const done = {
        ...common,
        startedAt: i.started_at,
        completedAt: i.completed_at,
        runtimeMs: i.runtime_ms,
        costKopecks: i.cost_kopecks,
      };
      if (i.status === 'succeeded') return { ...done, status: 'succeeded', output: i.output, runtimeMs: i.runtime_ms };
      if (i.status === 'failed') return { ...done, status: 'failed', error: i.error };
      return { ...done, status: 'canceled' };
    }
  }
};

export const dynamoPredictionStore = (
  tableName: string,
  client: DynamoDBDocumentClient = dynamo(),
): PredictionStore => ({
  async insert(prediction) {
    await client.send(
      new PutCommand({ TableName: tableName, Item: toItem(prediction), ConditionExpression: 'attribute_not_exists(pk)' }),
    );
  },
  async get(id) {
    const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: predictionKey(id), ConsistentRead: true }));
    return Item ? fromItem(Item) : null;
  },
  async replace(next, expected) {
    try {
      await client.send(
        new PutCommand({
          TableName: tableName,
          Item: toItem(next),
          ConditionExpression: '#status = :expected',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':expected': expected },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  },
  async recordProgress(id, fraction) {
    try {
      await client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: predictionKey(id),
          UpdateExpression: 'SET progress = :progress',
          ConditionExpression: '#status = :processing',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':progress': Math.min(1, Math.max(0, fraction)), ':processing': 'processing' },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
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

