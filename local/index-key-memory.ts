import type { TableIndexes } from './table-definitions.ts';

type Json = Record<string, unknown>;

/**
 * What each item's secondary-index keys were after the last whole-item write the meter saw (a
 * PutItem, a transaction's Put): DynamoDB bills a write that moves an item's index key twice
 * there (the old entry deleted, the new one put), and DynamoDB Local does not say so for a
 * transaction. A Delete, or an Update that names an index key attribute, forgets the item: its
 * keys are unknown until the next Put.
 */
export class IndexKeyMemory {
  readonly #keys = new Map<string, ReadonlyMap<string, string | null>>();

  constructor(private readonly tables: TableIndexes) {}

  /** The item's keys in each index of its table (null: not in it), or undefined when not known. */
  before(table: string, item: Json): ReadonlyMap<string, string | null> | undefined {
    const id = this.#idOf(table, item);
    return id === undefined ? undefined : this.#keys.get(id);
  }

  /** After one call that succeeded: what its writes leave known. */
  afterCall(operation: string, request: Json): void {
    const put = (table: unknown, item: unknown) => this.#remember(String(table), item as Json);
    const forget = (table: unknown, key: unknown) => {
      const id = this.#idOf(String(table), key as Json);
      if (id !== undefined) this.#keys.delete(id);
    };
    // An update that names no index key attribute leaves the item's index keys as they were.
    const update = (body: Json) => {
      if (this.#namesIndexKey(String(body.TableName), body)) forget(body.TableName, body.Key);
    };
    if (operation === 'PutItem') put(request.TableName, request.Item);
    if (operation === 'UpdateItem') update(request);
    if (operation === 'DeleteItem') forget(request.TableName, request.Key);
    if (operation === 'TransactWriteItems')
      for (const entry of (request.TransactItems ?? []) as Json[]) {
        const body = (Object.values(entry)[0] ?? {}) as Json;
        if ('Put' in entry) put(body.TableName, body.Item);
        else if ('Update' in entry) update(body);
        else if ('Delete' in entry) forget(body.TableName, body.Key);
      }
    if (operation === 'BatchWriteItem')
      for (const [table, requests] of Object.entries((request.RequestItems ?? {}) as Record<string, Json[]>))
        for (const entry of requests) {
          const putRequest = entry.PutRequest as Json | undefined;
          const deleteRequest = entry.DeleteRequest as Json | undefined;
          if (putRequest) put(table, putRequest.Item);
          if (deleteRequest) forget(table, deleteRequest.Key);
        }
  }

  #remember(table: string, item: Json): void {
    const definition = this.tables.get(table);
    const id = this.#idOf(table, item);
    if (definition === undefined || id === undefined) return;
    this.#keys.set(id, new Map(definition.indexes.map((index) => [index.name, indexKeyOf(item, index.keys)])));
  }

  /** Whether an update's expression names a key attribute of one of the table's indexes (or cannot be told). */
  #namesIndexKey(table: string, update: Json): boolean {
    const definition = this.tables.get(table);
    if (definition === undefined || typeof update.UpdateExpression !== 'string') return true;
    const names = (update.ExpressionAttributeNames ?? {}) as Record<string, string>;
    const named = new Set(
      (update.UpdateExpression.match(/#?[A-Za-z_]\w*/g) ?? []).map((token) => names[token] ?? token),
    );
    return definition.indexes.some((index) => index.keys.some((key) => named.has(key)));
  }

  #idOf(table: string, item: Json): string | undefined {
    const keys = this.tables.get(table)?.keys;
    if (keys === undefined || keys.some((name) => !(name in item))) return undefined;
    return JSON.stringify([table, ...keys.map((name) => item[name])]);
  }
}

/** An item's key in one index, or null when it lacks one of the index's key attributes (not in it). */
export const indexKeyOf = (item: Json, keys: readonly string[]): string | null =>
  keys.every((name) => name in item) ? JSON.stringify(keys.map((name) => item[name])) : null;
