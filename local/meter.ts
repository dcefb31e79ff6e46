/**
 * Counts what the service asks of each AWS service while it runs on the local runtime, so that
 * `npm run bench` can price a prediction from calls that really happened rather than from a
 * model of them. Served at /_local/meter; a caller diffs two snapshots.
 */
import { itemSize } from './dynamodb/item-size.ts';
import { IndexKeyMemory, indexKeyOf } from './index-key-memory.ts';
import {
  tableDefinitionOf,
  type IndexDefinition,
  type TableDefinition,
  type TableIndexes,
} from './table-definitions.ts';

export interface DynamoUsage {
  calls: number;
  readUnits: number;
  writeUnits: number;
}

export interface LambdaUsage {
  invocations: number;
  /** Wall time of the invocations, the proxy for billed duration. */
  totalMs: number;
}

export interface MeterSnapshot {
  /** API requests by `METHOD resource`. */
  readonly api: Record<string, number>;
  /** Invocations by function entry (the source file the template names). */
  readonly lambda: Record<string, LambdaUsage>;
  readonly dynamodb: Record<string, DynamoUsage>;
  /** The same calls by operation and the kinds of item they touch (`UpdateItem PREDICTION`): where the units go. */
  readonly dynamodbByItem: Record<string, DynamoUsage>;
  /** SQS requests by action; a long poll that returned nothing is counted apart. */
  readonly sqs: Record<string, number>;
  /** S3 requests by operation. */
  readonly s3: Record<string, number>;
  readonly stepFunctions: { executions: number; transitions: number; api: Record<string, number> };
}

/** An empty receive is idle polling, a cost of time rather than of any prediction. */
export const EMPTY_RECEIVE = 'ReceiveMessage (empty)';

/** The SQS actions whose answer the meter reads: a receive that brought nothing is an idle long poll. */
export const sqsAnswerRead = (action: string): boolean => action === 'ReceiveMessage';

const WRITE_UNIT_BYTES = 1024;
const READ_UNIT_BYTES = 4096;

/** DynamoDB's units for `bytes`: one per unit's size begun, at least one. */
const unitsFor = (bytes: number, unitBytes: number): number => Math.max(1, Math.ceil(bytes / unitBytes));

const emptySnapshot = (): MeterSnapshot => ({
  api: {},
  lambda: {},
  dynamodb: {},
  dynamodbByItem: {},
  sqs: {},
  s3: {},
  stepFunctions: { executions: 0, transitions: 0, api: {} },
});

const bump = (counts: Record<string, number>, key: string, by = 1) => {
  counts[key] = (counts[key] ?? 0) + by;
};

type Json = Record<string, unknown>;

/**
 * DynamoDB Local reports consumed capacity for single-item operations as DynamoDB does (the
 * indexes' writes included), but not for transactions (one Put in a transaction reports 4 units,
 * two Puts also 4). Transactions are therefore priced by DynamoDB's rule: two units per item per
 * 1 KB written (4 KB read), each item's size as DynamoDB measures it (`itemSize`) from the item the
 * request or answer carries (for an Update, its key and the values it sets: a lower bound, as the
 * item's other attributes count too). DynamoDB Local does tell which indexes a transaction wrote
 * (asked for INDEXES): each of those costs what the written items project into it, at least one
 * unit per KB, as a write outside a transaction would, and twice that for a Put that moves the
 * item's key in the index (`indexWriteUnits`, from what `IndexKeyMemory` saw written before).
 */
export const transactionUnits = (
  operation: string,
  request: Json,
  response: Json,
  indexes: TableIndexes = new Map(),
  /** Index keys of the items written before, to tell a write that moves one (twice the units). */
  memory?: IndexKeyMemory,
): { readUnits: number; writeUnits: number } => {
  const units = (item: Json | undefined, unitBytes: number) =>
    2 * unitsFor(itemSize((item ?? {}) as Record<string, Json>), unitBytes);
  if (operation === 'TransactWriteItems') {
    const items = (request.TransactItems ?? []) as Json[];
    return {
      readUnits: 0,
      writeUnits:
        items.reduce((sum, entry) => sum + units(writtenItem(entry), WRITE_UNIT_BYTES), 0) +
        indexWriteUnits(items, response, indexes, memory),
    };
  }
  const answers = (response.Responses ?? []) as Json[];
  return {
    readUnits: answers.reduce((sum, answer) => sum + units(answer.Item as Json | undefined, READ_UNIT_BYTES), 0),
    writeUnits: 0,
  };
};

/**
 * The units of the index writes a transaction made: for each index DynamoDB Local reports written,
 * each entry whose item carries the index's partition key writes what it projects there, one unit
 * per KB (DynamoDB bills index writes as it bills a table's; at least the standard rate here). An
 * index reported written with no such entry (an Update of an item already in it) costs one unit.
 */
const indexWriteUnits = (
  items: readonly Json[],
  response: Json,
  tables: TableIndexes,
  memory: IndexKeyMemory | undefined,
): number => {
  const consumed = (Array.isArray(response.ConsumedCapacity) ? response.ConsumedCapacity : []) as Json[];
  let units = 0;
  for (const { TableName: tableName, GlobalSecondaryIndexes: written = {} } of consumed) {
    const table = tables.get(String(tableName));
    const onTable = items.filter((entry) => entryBody(entry).TableName === tableName);
    for (const name of Object.keys(written as Json)) {
      const index = table?.indexes.find((candidate) => candidate.name === name);
      const partition = index?.keys[0];
      const costs =
        table === undefined || index === undefined || partition === undefined
          ? []
          : onTable.flatMap((entry) => {
              const item = writtenItem(entry);
              if (!(partition in item)) return [];
              // A Put that moves the item's key in the index deletes the old entry and puts the new.
              const before = 'Put' in entry ? memory?.before(String(tableName), item)?.get(name) : undefined;
              const moved = typeof before === 'string' && before !== indexKeyOf(item, index.keys);
              return [(moved ? 2 : 1) * unitsFor(projectedSize(item, table, index), WRITE_UNIT_BYTES)];
            });
      units += costs.length === 0 ? 1 : costs.reduce((sum, cost) => sum + cost, 0);
    }
  }
  return units;
};

/** The size of what an item puts into an index: all of it, or the keys and the attributes projected. */
const projectedSize = (item: Json, table: TableDefinition, index: IndexDefinition): number => {
  if (index.projected === null) return itemSize(item as Record<string, Json>);
  const kept = new Set([...table.keys, ...index.keys, ...index.projected]);
  return itemSize(Object.fromEntries(Object.entries(item).filter(([name]) => kept.has(name))) as Record<string, Json>);
};

/** One entry of a transaction, whatever its kind (`{ Put: … }`, `{ Update: … }`, `{ Get: … }`): its body. */
const entryBody = (entry: Json): Json => (Object.values(entry)[0] ?? {}) as Json;

/** What one entry of a write transaction writes: a Put's item, else its key and the values it names. */
const writtenItem = (entry: Json): Json => {
  const inner = entryBody(entry);
  if (inner.Item) return inner.Item as Json;
  return { ...(inner.Key as Json | undefined), ...(inner.ExpressionAttributeValues as Json | undefined) };
};

const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem']);

/** The units DynamoDB Local reports for a call that is not a transaction. */
const consumedUnits = (operation: string, response: Json): { readUnits: number; writeUnits: number } => {
  const consumed = response.ConsumedCapacity;
  const entries = (Array.isArray(consumed) ? consumed : consumed ? [consumed] : []) as Json[];
  const total = entries.reduce((sum, entry) => sum + Number(entry.CapacityUnits ?? 0), 0);
  return WRITES.has(operation) ? { readUnits: 0, writeUnits: total } : { readUnits: total, writeUnits: 0 };
};

const stringOf = (value: unknown): string =>
  typeof value === 'object' && value !== null && 'S' in value ? String(value.S) : '';

/**
 * What kind of item a key names, from the table's key formats: the sort key's kind where it has
 * one (an account's `SPEND#…` beside its `ACCOUNT`), else the partition key's (`RATE#…`).
 */
const kindOfKey = (key: Json | undefined): string => {
  const sortKind = /^[A-Z]+/.exec(stringOf(key?.sk))?.[0];
  return sortKind ?? /^[A-Z]+/.exec(stringOf(key?.pk))?.[0] ?? '?';
};

/** The kinds of item a call touches, joined (`ACCOUNT+SPEND+PREDICTION`); an index for a query. */
export const itemKinds = (operation: string, request: Json): string => {
  if (operation === 'Query' || operation === 'Scan') {
    return typeof request.IndexName === 'string' ? request.IndexName : 'table';
  }
  if (operation === 'TransactWriteItems' || operation === 'TransactGetItems') {
    const parts = ((request.TransactItems ?? []) as Json[]).map((entry) => {
      const inner = entryBody(entry);
      return kindOfKey((inner.Key ?? inner.Item) as Json | undefined);
    });
    return parts.join('+');
  }
  return kindOfKey((request.Key ?? request.Item) as Json | undefined);
};

export class CallMeter {
  private readonly counts = emptySnapshot();
  /** The tables' keys and indexes, learned from the CreateTable calls that passed. */
  private readonly tables: TableIndexes = new Map();
  private readonly indexKeys = new IndexKeyMemory(this.tables);

  apiRequest(method: string, resource: string): void {
    bump(this.counts.api, `${method} ${resource}`);
  }

  lambdaInvocation(entry: string, ms: number): void {
    const usage = (this.counts.lambda[entry] ??= { invocations: 0, totalMs: 0 });
    usage.invocations += 1;
    usage.totalMs += ms;
  }

  /** One DynamoDB call, with its request and answer (which carries ConsumedCapacity when asked). */
  dynamoCall(operation: string, request: Json, response: Json): void {
    if (operation === 'CreateTable') this.tables.set(String(request.TableName), tableDefinitionOf(request));
    const units = operation.startsWith('Transact')
      ? transactionUnits(operation, request, response, this.tables, this.indexKeys)
      : consumedUnits(operation, response);
    // An answer without ConsumedCapacity is a call that failed (the proxy passes `{}`): nothing written.
    if (response.ConsumedCapacity !== undefined) this.indexKeys.afterCall(operation, request);
    for (const usage of [
      (this.counts.dynamodb[operation] ??= { calls: 0, readUnits: 0, writeUnits: 0 }),
      (this.counts.dynamodbByItem[`${operation} ${itemKinds(operation, request)}`] ??= {
        calls: 0,
        readUnits: 0,
        writeUnits: 0,
      }),
    ]) {
      usage.calls += 1;
      usage.readUnits += units.readUnits;
      usage.writeUnits += units.writeUnits;
    }
  }

  /** `response` is read only for the actions `sqsAnswerRead` names (an empty receive is not billed here). */
  sqsCall(action: string, response: Json): void {
    const empty = sqsAnswerRead(action) && !(response.Messages as unknown[] | undefined)?.length;
    bump(this.counts.sqs, empty ? EMPTY_RECEIVE : action);
  }

  s3Call(operation: string): void {
    bump(this.counts.s3, operation);
  }

  stepFunctionsCall(operation: string): void {
    bump(this.counts.stepFunctions.api, operation);
  }

  executionStarted(): void {
    this.counts.stepFunctions.executions += 1;
  }

  /** A state entered or retried: what Standard workflows bill. */
  stateTransition(): void {
    this.counts.stepFunctions.transitions += 1;
  }

  snapshot(): MeterSnapshot {
    return structuredClone(this.counts);
  }
}

/**
 * This process's meter. The API process's counts API requests, invocations and Step Functions;
 * the emulators' process's (local/emulator-host.ts) the calls its proxies pass: `combineSnapshots`
 * adds the two.
 */
export const localMeter = new CallMeter();

type Arithmetic = (a: number, b: number) => number;

const keysOf = (a: object, b: object): string[] => [...new Set([...Object.keys(a), ...Object.keys(b)])];

/** Field by field, every field of either side. */
const fieldwise = (a: Record<string, number>, b: Record<string, number>, op: Arithmetic): Record<string, number> =>
  Object.fromEntries(keysOf(a, b).map((key) => [key, op(a[key] ?? 0, b[key] ?? 0)]));

/** Key by key over both sides; an entry that comes to nothing is left out. */
const combineCounts = (a: Record<string, number>, b: Record<string, number>, op: Arithmetic) =>
  Object.fromEntries(Object.entries(fieldwise(a, b, op)).filter(([, value]) => value !== 0));

/** The same for usages (`{ calls, readUnits, writeUnits }`, `{ invocations, totalMs }`), field by field. */
const combineUsages = <U extends object>(a: Record<string, U>, b: Record<string, U>, op: Arithmetic) =>
  Object.fromEntries(
    keysOf(a, b)
      .map((key) => [key, fieldwise(asCounts(a[key]), asCounts(b[key]), op)] as const)
      .filter(([, usage]) => Object.values(usage).some((value) => value !== 0)),
  ) as Record<string, U>;

const asCounts = (usage: object | undefined): Record<string, number> => (usage ?? {}) as Record<string, number>;

/**
 * Two snapshots combined key by key: `+` makes two meters' counts one (the API process's and the
 * emulators' process's), `−` tells what happened between two snapshots of one meter.
 */
export const combineSnapshots = (a: MeterSnapshot, b: MeterSnapshot, op: Arithmetic): MeterSnapshot => ({
  api: combineCounts(a.api, b.api, op),
  lambda: combineUsages(a.lambda, b.lambda, op),
  dynamodb: combineUsages(a.dynamodb, b.dynamodb, op),
  dynamodbByItem: combineUsages(a.dynamodbByItem, b.dynamodbByItem, op),
  sqs: combineCounts(a.sqs, b.sqs, op),
  s3: combineCounts(a.s3, b.s3, op),
  stepFunctions: {
    executions: op(a.stepFunctions.executions, b.stepFunctions.executions),
    transitions: op(a.stepFunctions.transitions, b.stepFunctions.transitions),
    api: combineCounts(a.stepFunctions.api, b.stepFunctions.api, op),
  },
});

/** Operations that accept ReturnConsumedCapacity; the proxy asks DynamoDB Local for it on each. */
export const CAPACITY_OPERATIONS = new Set([
  'GetItem',
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'Query',
  'Scan',
  'BatchGetItem',
  'BatchWriteItem',
  'TransactWriteItems',
  'TransactGetItems',
]);
