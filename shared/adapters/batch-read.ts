import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { setTimeout as sleep } from 'node:timers/promises';
import { TABLE_KEY } from './table-keys.ts';

type Item = Record<string, unknown>;

/** BatchGetItem takes at most 100 keys a call. */
const KEYS_PER_CALL = 100;
/** Pauses before asking again for keys DynamoDB left unread (it does so when throttled). */
const UNPROCESSED_RETRY_PAUSES_MS = [25, 50, 100, 200, 400, 800, 1600];

const keyText = (item: Item): string => `${String(item[TABLE_KEY.partition])}\n${String(item[TABLE_KEY.sort])}`;
const tableKeyOf = (item: Item): Item => ({
  [TABLE_KEY.partition]: item[TABLE_KEY.partition],
  [TABLE_KEY.sort]: item[TABLE_KEY.sort],
});

/**
 * The items at the table keys of `entries` (an index's entries, say), in the entries' order;
 * an entry whose item is gone since (TTL, a delete) is left out. Reads are eventually consistent,
 * as the index they came from is.
 */
export const readItems = async (
  client: DynamoDBDocumentClient,
  tableName: string,
  entries: readonly Item[],
): Promise<Item[]> => {
  const found = new Map<string, Item>();
  const keys = [...new Map(entries.map((entry) => [keyText(entry), tableKeyOf(entry)])).values()];
  for (let start = 0; start < keys.length; start += KEYS_PER_CALL) {
    let pending: Item[] = keys.slice(start, start + KEYS_PER_CALL);
    for (let attempt = 0; pending.length > 0; attempt++) {
      const { Responses, UnprocessedKeys } = await client.send(
        new BatchGetCommand({ RequestItems: { [tableName]: { Keys: pending } } }),
      );
      for (const item of Responses?.[tableName] ?? []) found.set(keyText(item), item);
      pending = UnprocessedKeys?.[tableName]?.Keys ?? [];
      if (pending.length === 0) break;
      const pause = UNPROCESSED_RETRY_PAUSES_MS[attempt];
      if (pause === undefined) throw new Error(`BatchGetItem left ${pending.length} keys unread after every retry`);
      await sleep(pause * (0.5 + Math.random()));
    }
  }
  return entries.flatMap((entry) => {
    const item = found.get(keyText(entry));
    return item === undefined ? [] : [item];
  });
};
