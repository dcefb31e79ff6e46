import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { formatTimestamp } from '../domain/clock.ts';
import type { AccountId } from '../domain/ids.ts';
import { monthOf } from '../domain/money.ts';
import { accountIndexPartition, OWNER_INDEX, ownerIndexStartKey, predictionIdOfKey, spendKey } from './table-keys.ts';

/**
 * How long an owner index entry may take to appear after a later one has: an index lags its table
 * a little, so only entries older than this are counted once and for all.
 */
export const INDEX_SETTLED_MS = 60_000;

type Item = Record<string, unknown>;

/** The month's spend item keeps the runs counted so far, each model's, and where the count stopped. */
export const countedAttributeOf = (model: string): string => `counted#${model}`;
const COUNTED_UNTIL = 'counted_until';

/** The owner index's sort keys (creation timestamps) of one month sort between these. */
const monthRange = (month: string) => ({ from: `${month}-00`, to: `${month}-99` });

/**
 * How many predictions of `model` the account made in the month of `nowMs`, counted from the owner
 * index, which holds each prediction's model: a create writes nothing for it. What the index held
 * settled is counted once and kept on the month's spend item, with where the count stopped, so a
 * read walks only what came since.
 */
export const runsThisMonth = async (
  client: DynamoDBDocumentClient,
  tableName: string,
  account: AccountId,
  model: string,
  nowMs: number,
): Promise<number> => {
  const month = monthOf(nowMs);
  const { Item: spend = {} } = await client.send(
    new GetCommand({ TableName: tableName, Key: spendKey(account, month) }),
  );
  const until = typeof spend[COUNTED_UNTIL] === 'string' ? spend[COUNTED_UNTIL] : null;
  const { from, to } = monthRange(month);
  const settledBefore = formatTimestamp(nowMs - INDEX_SETTLED_MS);
  const settled = new Map<string, number>();
  let fresh = 0;
  let lastSettled: string | null = null;
  const resumeAt = until === null ? null : (JSON.parse(until) as { at: string; pk: string });
  let startKey: Item | undefined =
    resumeAt === null ? undefined : ownerIndexStartKey(account, resumeAt.at, predictionIdOfKey(resumeAt.pk));
  do {
    const page = await client.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: OWNER_INDEX.name,
        KeyConditionExpression: '#owner = :owner AND #created BETWEEN :from AND :to',
        ExpressionAttributeNames: { '#owner': OWNER_INDEX.partition, '#created': OWNER_INDEX.sort, '#model': 'model' },
        ExpressionAttributeValues: { ':owner': accountIndexPartition(account), ':from': from, ':to': to },
        ProjectionExpression: `pk, #created, #model`,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const entry of page.Items ?? []) {
      const at = String(entry[OWNER_INDEX.sort]);
      const of = String(entry.model);
      if (at < settledBefore) {
        settled.set(of, (settled.get(of) ?? 0) + 1);
        lastSettled = JSON.stringify({ at, pk: String(entry.pk) });
      } else if (of === model) fresh += 1;
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  const kept = typeof spend[countedAttributeOf(model)] === 'number' ? (spend[countedAttributeOf(model)] as number) : 0;
  if (lastSettled !== null) await keepCount(client, tableName, account, month, settled, until, lastSettled);
  return kept + (settled.get(model) ?? 0) + fresh;
};

/** Adds what was counted to the month's spend item, unless another read has counted it meanwhile. */
const keepCount = async (
  client: DynamoDBDocumentClient,
  tableName: string,
  account: AccountId,
  month: string,
  counted: ReadonlyMap<string, number>,
  until: string | null,
  next: string,
): Promise<void> => {
  const models = [...counted.entries()];
  try {
    await client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: spendKey(account, month),
        UpdateExpression: `SET #until = :next, #type = :spend ADD ${models.map((_, at) => `#m${at} :n${at}`).join(', ')}`,
        ConditionExpression: until === null ? 'attribute_not_exists(#until)' : '#until = :until',
        ExpressionAttributeNames: {
          '#until': COUNTED_UNTIL,
          '#type': 'type',
          ...Object.fromEntries(models.map(([model], at) => [`#m${at}`, countedAttributeOf(model)])),
        },
        ExpressionAttributeValues: {
          ':next': next,
          ':spend': 'spend',
          ...(until === null ? {} : { ':until': until }),
          ...Object.fromEntries(models.map(([, count], at) => [`:n${at}`, count])),
        },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
};
