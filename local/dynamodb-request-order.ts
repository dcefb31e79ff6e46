import { claimOfRequest } from './dynamodb-item-keys.ts';
import { BARRIER, KeyedOrder } from './keyed-order.ts';

/** Operations after which a table's key schema may differ from the one learned. */
const SCHEMA_CHANGES = new Set(['CreateTable', 'DeleteTable']);

const parsed = (body: Buffer): unknown => {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
};

const tableNameOf = (request: unknown): string | undefined => {
  const name = typeof request === 'object' && request !== null ? (request as { TableName?: unknown }).TableName : null;
  return typeof name === 'string' ? name : undefined;
};

/**
 * Orders DynamoDB requests as DynamoDB orders conflicting ones: calls on the same items in arrival
 * order (a transaction holds all of its items at once), unrelated calls side by side, anything
 * that cannot be told apart as a barrier. DynamoDB Local, left to itself, lets conditional writes
 * of concurrent requests interleave (funds, rate windows and idempotency claims would overrun).
 * `describeKeys` reads a table's key attributes (DescribeTable) the first time a put needs them.
 */
export const dynamoRequestOrder = (describeKeys: (table: string) => Promise<readonly string[]>) => {
  const order = new KeyedOrder();
  const keySchemas = new Map<string, readonly string[]>();
  return (operation: string, body: Buffer, forward: () => Promise<void>): Promise<void> => {
    const request = parsed(body);
    const claim = claimOfRequest(operation, request, (table) => keySchemas.get(table));
    if (SCHEMA_CHANGES.has(operation)) {
      const table = tableNameOf(request);
      if (table !== undefined) keySchemas.delete(table);
    }
    if (!('unknownTable' in claim)) return order.run(claim, forward);
    const table = claim.unknownTable;
    return order.run(BARRIER, async () => {
      // Learned meanwhile, by a put that arrived before this one. A table that is not there (yet)
      // is left unknown: the call itself will say so.
      const keys = keySchemas.get(table) ?? (await describeKeys(table).catch(() => undefined));
      if (keys !== undefined) keySchemas.set(table, keys);
      await forward();
    });
  };
};
