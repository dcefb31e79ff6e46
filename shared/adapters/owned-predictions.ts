import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AccountId } from '../domain/ids.ts';
import { readAt } from '../domain/retention.ts';
import type { ListPosition, OwnedPredictionsPage, OwnedPredictionsQuery } from '../ports/prediction-store.ts';
import { fromItem, retentionOfItem } from './prediction-item.ts';
import { OWNER_INDEX, predictionIdOfKey, predictionKey } from './table-keys.ts';

/** Queries one page may take: a sparse filter ends the page early, with a position to go on from. */
export const QUERIES_PER_PAGE = 10;
/** Items a filtered query reads at once (DynamoDB stops at 1 MB anyway): filters drop most of them. */
const FILTERED_READ = 500;

/*
 * The account's index partition holds its token items too (`TOKEN#…`): every query keeps to the
 * range of creation timestamps, which sort below them.
 */
const EARLIEST = '0000-01-01T00:00:00.000000Z';
const LATEST = '9999-12-31T23:59:59.999999Z';

type Item = Record<string, unknown>;

const positionOf = (item: Item): ListPosition => ({
  createdAt: String(item[OWNER_INDEX.sort]),
  id: predictionIdOfKey(String(item.pk)),
});

/** A query on an index resumes from the item's table key and index key together. */
const startKeyOf = (owner: AccountId, position: ListPosition): Item => ({
  ...predictionKey(position.id),
  [OWNER_INDEX.partition]: `ACCOUNT#${owner}`,
  [OWNER_INDEX.sort]: position.createdAt,
});

/**
 * Where in the time range the walk begins. DynamoDB refuses a start key outside the key
 * condition, and a cursor may come back with other filters: past the end the walk has nothing
 * left; before the beginning, it starts at the range's edge.
 */
type Start =
  { readonly kind: 'edge' } | { readonly kind: 'key'; readonly position: ListPosition } | { readonly kind: 'beyond' };

const startOf = (query: OwnedPredictionsQuery, from: string, to: string): Start => {
  const position = query.after;
  if (!position) return { kind: 'edge' };
  const [pastEnd, beforeStart] =
    query.toward === 'older'
      ? [position.createdAt < from, position.createdAt > to]
      : [position.createdAt > to, position.createdAt < from];
  if (pastEnd) return { kind: 'beyond' };
  if (beforeStart) return { kind: 'edge' };
  return { kind: 'key', position };
};

/** The FilterExpression and its values: only live predictions, and the caller's filters. */
const filtersOf = (query: OwnedPredictionsQuery, nowMs: number) => {
  const conditions = ['#type = :prediction', '(attribute_not_exists(expires_at) OR expires_at > :now)'];
  const values: Item = { ':prediction': 'prediction', ':now': nowMs / 1000 };
  const names: Record<string, string> = { '#type': 'type' };
  // The key condition's BETWEEN takes its upper bound in; `created_before` does not.
  if (query.createdBefore !== undefined) {
    conditions.push('created_at < :before');
    values[':before'] = query.createdBefore;
  }
  if (query.model !== undefined) {
    conditions.push('#model = :model');
    names['#model'] = 'model';
    values[':model'] = query.model;
  }
  if (query.status !== undefined) {
    conditions.push('#status = :status');
    names['#status'] = 'status';
    values[':status'] = query.status;
  }
  return {
    expression: conditions.join(' AND '),
    names,
    values,
    sparse: query.model !== undefined || query.status !== undefined,
  };
};

/**
 * One page of an account's predictions from the owner index (see `PredictionStore.listOwned`).
 * It reads one item more than the page holds, to know whether anything is left beyond it.
 */
export const queryOwnedPredictions = async (
  client: DynamoDBDocumentClient,
  tableName: string,
  owner: AccountId,
  query: OwnedPredictionsQuery,
  nowMs: number,
): Promise<OwnedPredictionsPage> => {
  const from = query.createdAfter ?? EARLIEST;
  const to = query.createdBefore ?? LATEST;
  const start = startOf(query, from, to);
  const older = query.toward === 'older';
  if (start.kind === 'beyond' || from > to) {
    const behind = query.after ?? null;
    return { predictions: [], older: older ? null : behind, newer: older ? behind : null };
  }
  const filters = filtersOf(query, nowMs);
  const matched: Item[] = [];
  let startKey = start.kind === 'key' ? startKeyOf(owner, start.position) : undefined;
  for (let queries = 0; queries < QUERIES_PER_PAGE && matched.length <= query.limit; queries++) {
    const wanted = query.limit + 1 - matched.length;
    const page = await client.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: OWNER_INDEX.name,
        KeyConditionExpression: '#owner = :owner AND #created BETWEEN :from AND :to',
        FilterExpression: filters.expression,
        ExpressionAttributeNames: { '#owner': OWNER_INDEX.partition, '#created': OWNER_INDEX.sort, ...filters.names },
        ExpressionAttributeValues: { ':owner': `ACCOUNT#${owner}`, ':from': from, ':to': to, ...filters.values },
        ScanIndexForward: !older,
        ExclusiveStartKey: startKey,
        Limit: filters.sparse ? Math.max(wanted, FILTERED_READ) : wanted,
      }),
    );
    matched.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
    if (!startKey) break;
  }
  const taken = matched.slice(0, query.limit);
  const last = taken.at(-1);
  // Past a full page, the next one starts after its last item; short of one (the work ran out),
  // after the last item read, matched or not.
  const ahead = matched.length > query.limit && last ? positionOf(last) : startKey ? positionOf(startKey) : null;
  // Back the way the walk came: before its first item, or where it began when it found none.
  const first = taken[0];
  const behind = start.kind === 'key' ? (first ? positionOf(first) : start.position) : null;
  // As `get` reads them: without their data once it has expired, whether or not it is removed yet.
  const predictions = taken.flatMap((item) => readAt(fromItem(item), retentionOfItem(item), nowMs) ?? []);
  return older
    ? { predictions, older: ahead, newer: behind }
    : { predictions: predictions.reverse(), older: behind, newer: ahead };
};
