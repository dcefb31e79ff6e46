import { BARRIER, type OrderClaim } from './keyed-order.ts';

/** A table's key attributes (partition key, then sort key if any), by table name; undefined while unknown. */
export type KeySchemaOf = (table: string) => readonly string[] | undefined;

/**
 * The items a DynamoDB request reads and writes, as keys of `local/keyed-order.ts`, or a barrier
 * for what cannot be told: any other operation (CreateTable, DescribeTable, UpdateTimeToLive, …),
 * a body that is not what the operation takes, and a put into a table whose key schema is not
 * known yet (`unknownTable`: learn it, and the next put into it is told).
 */
export type ItemClaim = OrderClaim | { readonly kind: 'barrier'; readonly unknownTable: string };

type Json = Record<string, unknown>;

class Unclassifiable extends Error {}
class UnknownSchema extends Error {
  constructor(readonly table: string) {
    super(`the key schema of ${table} is not known`);
  }
}

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const objectAt = (parent: Json, field: string): Json => {
  const value = parent[field];
  if (!isObject(value)) throw new Unclassifiable();
  return value;
};

const arrayAt = (parent: Json, field: string): unknown[] => {
  const value = parent[field];
  if (!Array.isArray(value)) throw new Unclassifiable();
  return value;
};

const tableAt = (parent: Json): string => {
  const table = parent.TableName;
  if (typeof table !== 'string' || table === '') throw new Unclassifiable();
  return table;
};

/** One item's identity: its table and its key attributes in a fixed order, whatever order the request gave. */
export const itemKey = (table: string, key: Json): string => {
  const names = Object.keys(key).sort();
  if (names.length === 0) throw new Unclassifiable();
  return `${table}\u0000${names.map((name) => `${name}=${JSON.stringify(key[name])}`).join('\u0000')}`;
};

/** The key of a whole item, by its table's key schema. */
const keyOfItem = (table: string, item: Json, schemaOf: KeySchemaOf): string => {
  const names = schemaOf(table);
  if (names === undefined) throw new UnknownSchema(table);
  const key: Json = {};
  for (const name of names) {
    if (!isObject(item[name])) throw new Unclassifiable();
    key[name] = item[name];
  }
  return itemKey(table, key);
};

const keyedAt = (parent: Json): string => itemKey(tableAt(parent), objectAt(parent, 'Key'));

const claimOfBody = (operation: string, request: Json, schemaOf: KeySchemaOf): OrderClaim => {
  const reads: string[] = [];
  const writes: string[] = [];
  switch (operation) {
    case 'GetItem':
      reads.push(keyedAt(request));
      break;
    case 'UpdateItem':
    case 'DeleteItem':
      writes.push(keyedAt(request));
      break;
    case 'PutItem':
      writes.push(keyOfItem(tableAt(request), objectAt(request, 'Item'), schemaOf));
      break;
    case 'BatchGetItem':
      for (const [table, wanted] of Object.entries(objectAt(request, 'RequestItems'))) {
        if (!isObject(wanted)) throw new Unclassifiable();
        for (const key of arrayAt(wanted, 'Keys')) {
          if (!isObject(key)) throw new Unclassifiable();
          reads.push(itemKey(table, key));
        }
      }
      break;
    case 'BatchWriteItem':
      for (const [table, requests] of Object.entries(objectAt(request, 'RequestItems'))) {
        if (!Array.isArray(requests)) throw new Unclassifiable();
        for (const entry of requests) {
          if (!isObject(entry)) throw new Unclassifiable();
          if (isObject(entry.PutRequest)) writes.push(keyOfItem(table, objectAt(entry.PutRequest, 'Item'), schemaOf));
          else if (isObject(entry.DeleteRequest)) writes.push(itemKey(table, objectAt(entry.DeleteRequest, 'Key')));
          else throw new Unclassifiable();
        }
      }
      break;
    case 'TransactGetItems':
      for (const entry of arrayAt(request, 'TransactItems')) {
        if (!isObject(entry)) throw new Unclassifiable();
        reads.push(keyedAt(objectAt(entry, 'Get')));
      }
      break;
    case 'TransactWriteItems':
      for (const entry of arrayAt(request, 'TransactItems')) {
        if (!isObject(entry)) throw new Unclassifiable();
        if (isObject(entry.ConditionCheck)) reads.push(keyedAt(entry.ConditionCheck));
        else if (isObject(entry.Update)) writes.push(keyedAt(entry.Update));
        else if (isObject(entry.Delete)) writes.push(keyedAt(entry.Delete));
        else if (isObject(entry.Put)) writes.push(keyOfItem(tableAt(entry.Put), objectAt(entry.Put, 'Item'), schemaOf));
        else throw new Unclassifiable();
      }
      break;
    case 'Query':
    case 'Scan':
      // Eventually consistent (an index's always are): on AWS too it may miss writes in flight,
      // so it is ordered against nothing but barriers. A consistent one waits for everything.
      if (request.ConsistentRead === true) throw new Unclassifiable();
      break;
    default:
      throw new Unclassifiable();
  }
  return { kind: 'keys', reads, writes };
};

/** What `operation` (X-Amz-Target's last part) with this JSON body touches. */
export const claimOfRequest = (operation: string, body: unknown, schemaOf: KeySchemaOf): ItemClaim => {
  if (!isObject(body)) return BARRIER;
  try {
    return claimOfBody(operation, body, schemaOf);
  } catch (error) {
    if (error instanceof UnknownSchema) return { kind: 'barrier', unknownTable: error.table };
    if (error instanceof Unclassifiable) return BARRIER;
    throw error;
  }
};

/** A table's key attributes, partition key first, from its key schema (as DescribeTable gives it). */
export const keyAttributesOf = (
  table: string,
  schema: readonly { readonly AttributeName?: string | undefined; readonly KeyType?: string | undefined }[],
): readonly string[] => {
  const named = (type: string) => schema.find((element) => element.KeyType === type)?.AttributeName;
  const hash = named('HASH');
  const range = named('RANGE');
  if (hash === undefined) throw new Error(`the key schema of ${table} has no partition key: ${JSON.stringify(schema)}`);
  return range === undefined ? [hash] : [hash, range];
};
