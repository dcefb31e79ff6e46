import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Page, PageRequest } from '../domain/page.ts';

type Item = Record<string, unknown>;

/** A range of one partition, in a table or an index, whose sort keys begin with `prefix` and are unique. */
export interface KeysetRange {
  readonly tableName: string;
  readonly indexName?: string;
  readonly partition: { readonly name: string; readonly value: string };
  readonly sort: { readonly name: string; readonly prefix: string };
  /** The list's order: sort keys descending (newest first, for keys that begin with a time) or ascending. */
  readonly descending: boolean;
}

/** Above every character a sort key of ours holds. */
const HIGHEST = '\u{10FFFF}';

/**
 * One page of the range, as a position (the sort key past the prefix) and the pages beside it go.
 * Each page is one query: its limit plus two, for the item at the position (left out) and one to
 * tell whether more follow.
 */
export const keysetPage = async (
  client: DynamoDBDocumentClient,
  range: KeysetRange,
  request: PageRequest,
): Promise<Page<Item>> => {
  const { sort, partition } = range;
  const keyOf = (item: Item): string => String(item[sort.name]).slice(sort.prefix.length);
  const from = request.from;
  const backward = from?.toward === 'previous';
  // Ascending sort keys run in the list's order when the list is ascending and the page goes forward.
  const ascending = range.descending === backward;
  const at = from === undefined ? null : sort.prefix + from.position;
  const [low, high] =
    at === null ? [sort.prefix, sort.prefix + HIGHEST] : ascending ? [at, sort.prefix + HIGHEST] : [sort.prefix, at];
  const { Items = [] } = await client.send(
    new QueryCommand({
      TableName: range.tableName,
      ...(range.indexName === undefined ? {} : { IndexName: range.indexName }),
      KeyConditionExpression: '#p = :p AND #s BETWEEN :low AND :high',
      ExpressionAttributeNames: { '#p': partition.name, '#s': sort.name },
      ExpressionAttributeValues: { ':p': partition.value, ':low': low, ':high': high },
      ScanIndexForward: ascending,
      Limit: request.limit + 2,
    }),
  );
  const past = Items.filter((item) => item[sort.name] !== at);
  const shown = past.slice(0, request.limit);
  const more = past.length > request.limit;
  const first = shown[0];
  const last = shown.at(-1);
  if (!backward)
    return {
      items: shown,
      next: more && last ? keyOf(last) : null,
      previous: from !== undefined && first ? keyOf(first) : null,
    };
  const inOrder = shown.reverse();
  return {
    items: inOrder,
    next: inOrder.at(-1) ? keyOf(inOrder.at(-1) as Item) : null,
    previous: more && inOrder[0] ? keyOf(inOrder[0]) : null,
  };
};
