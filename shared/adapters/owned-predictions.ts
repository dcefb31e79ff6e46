import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AccountId } from '../domain/ids.ts';
import { readAt } from '../domain/retention.ts';
import type { ListPosition, OwnedPredictionsPage, OwnedPredictionsQuery } from '../ports/prediction-store.ts';
import type { Prediction } from '../domain/prediction.ts';
import { readItems } from './batch-read.ts';
import { fromItem, retentionOfItem } from './prediction-item.ts';
import { OWNER_INDEX, ownerIndexStartKey, predictionIdOfKey } from './table-keys.ts';

/** Queries one page may take: a sparse filter ends the page early, with a position to go on from. */
export const QUERIES_PER_PAGE = 10;
/** Index entries a filtered query reads at once (DynamoDB stops at 1 MB anyway): filters drop most of them. */
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

/**
 * The caller's filters, split by where they apply: the index holds the model (a query filter
 * keeps a sparse model's reads to the index), the entry's own key holds its creation time; the
 * status, the expiry and the kind of item are the item's, read after.
 */
const filtersOf = (query: OwnedPredictionsQuery, nowMs: number) => {
  const indexFilter =
    query.model === undefined
      ? {}
      : {
          FilterExpression: '#model = :model',
          ExpressionAttributeNames: { '#model': 'model' },
          ExpressionAttributeValues: { ':model': query.model },
        };
  const before = query.createdBefore;
  // The key condition's BETWEEN takes its upper bound in; `created_before` does not.
  const entryMatches = (entry: Item): boolean => before === undefined || String(entry[OWNER_INDEX.sort]) < before;
  const itemMatches = (item: Item): Prediction | null => {
    if (item.type !== 'prediction') return null;
    // As `get` reads them: without their data once it has expired, whether or not it is removed yet.
    const prediction = readAt(fromItem(item), retentionOfItem(item), nowMs);
    return prediction !== null && (query.status === undefined || prediction.status === query.status)
      ? prediction
      : null;
  };
  return {
    indexFilter,
    entryMatches,
    itemMatches,
    sparse: query.model !== undefined || query.status !== undefined,
  };
};

/** Entries whose items a listing reads at once: reading stops once the page is full. */
const ITEMS_READ_AT_ONCE = 100;

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
  const matched: { readonly entry: Item; readonly prediction: Prediction }[] = [];
  let startKey: Item | undefined =
    start.kind === 'key' ? ownerIndexStartKey(owner, start.position.createdAt, start.position.id) : undefined;
  for (let queries = 0; queries < QUERIES_PER_PAGE && matched.length <= query.limit; queries++) {
    const wanted = query.limit + 1 - matched.length;
    const page = await client.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: OWNER_INDEX.name,
        KeyConditionExpression: '#owner = :owner AND #created BETWEEN :from AND :to',
        ...filters.indexFilter,
        ExpressionAttributeNames: {
          '#owner': OWNER_INDEX.partition,
          '#created': OWNER_INDEX.sort,
          ...filters.indexFilter.ExpressionAttributeNames,
        },
        ExpressionAttributeValues: {
          ':owner': `ACCOUNT#${owner}`,
          ':from': from,
          ':to': to,
          ...filters.indexFilter.ExpressionAttributeValues,
        },
        ScanIndexForward: !older,
        ExclusiveStartKey: startKey,
        Limit: filters.sparse ? Math.max(wanted, FILTERED_READ) : wanted,
      }),
    );
    const entries = (page.Items ?? []).filter(filters.entryMatches);
    for (let at = 0; at < entries.length && matched.length <= query.limit; at += ITEMS_READ_AT_ONCE) {
      const batch = entries.slice(at, at + ITEMS_READ_AT_ONCE);
      const items = new Map((await readItems(client, tableName, batch)).map((item) => [String(item.pk), item]));
      for (const entry of batch) {
        const item = items.get(String(entry.pk));
        const prediction = item === undefined ? null : filters.itemMatches(item);
        if (prediction !== null) matched.push({ entry, prediction });
      }
    }
    startKey = page.LastEvaluatedKey;
    if (!startKey) break;
  }
  const taken = matched.slice(0, query.limit);
  const last = taken.at(-1);
  // Past a full page, the next one starts after its last item; short of one (the work ran out),
  // after the last item read, matched or not.
  const ahead = matched.length > query.limit && last ? positionOf(last.entry) : startKey ? positionOf(startKey) : null;
  // Back the way the walk came: before its first item, or where it began when it found none.
  const first = taken[0];
  const behind = start.kind === 'key' ? (first ? positionOf(first.entry) : start.position) : null;
  const predictions = taken.map(({ prediction }) => prediction);
  return older
    ? { predictions, older: ahead, newer: behind }
    : { predictions: predictions.reverse(), older: behind, newer: ahead };
};
