import { describe, expect, it } from 'vitest';
import { claimOfRequest, itemKey, keyAttributesOf, type KeySchemaOf } from '../../local/dynamodb-item-keys.ts';
import { dynamoRequestOrder } from '../../local/dynamodb-request-order.ts';
import { BARRIER } from '../../local/keyed-order.ts';

const SCHEMAS: Record<string, readonly string[]> = { Data: ['pk', 'sk'], Simple: ['id'] };
const schemaOf: KeySchemaOf = (table) => SCHEMAS[table];
const key = (pk: string, sk: string) => ({ pk: { S: pk }, sk: { S: sk } });
const data = (pk: string, sk: string) => itemKey('Data', key(pk, sk));

describe('the items a DynamoDB request touches (what the local proxy orders by)', () => {
  it('names an item by its table and key, whatever order the key attributes come in', () => {
    expect(itemKey('Data', { sk: { S: 'b' }, pk: { S: 'a' } })).toBe(data('a', 'b'));
    expect(data('a', 'b')).not.toBe(data('a', 'c'));
    expect(itemKey('Other', key('a', 'b'))).not.toBe(data('a', 'b'));
  });

  it('reads the key of single-item calls, and of a put from its table’s key schema', () => {
    expect(claimOfRequest('GetItem', { TableName: 'Data', Key: key('a', 'b') }, schemaOf)).toEqual({
      kind: 'keys',
      reads: [data('a', 'b')],
      writes: [],
    });
    for (const operation of ['UpdateItem', 'DeleteItem']) {
      expect(claimOfRequest(operation, { TableName: 'Data', Key: key('a', 'b') }, schemaOf)).toEqual({
        kind: 'keys',
        reads: [],
        writes: [data('a', 'b')],
      });
    }
    const item = { ...key('a', 'b'), balance: { N: '10' } };
    expect(claimOfRequest('PutItem', { TableName: 'Data', Item: item }, schemaOf)).toEqual({
      kind: 'keys',
      reads: [],
      writes: [data('a', 'b')],
    });
  });

  it('claims every item of a transaction and of a batch, condition checks as reads', () => {
    const transaction = {
      TransactItems: [
        { Update: { TableName: 'Data', Key: key('account', 'a') } },
        { Put: { TableName: 'Data', Item: { ...key('prediction', 'p'), status: { S: 'starting' } } } },
        { ConditionCheck: { TableName: 'Data', Key: key('claim', 'c') } },
        { Delete: { TableName: 'Simple', Key: { id: { S: 'gone' } } } },
      ],
    };
    expect(claimOfRequest('TransactWriteItems', transaction, schemaOf)).toEqual({
      kind: 'keys',
      reads: [data('claim', 'c')],
      writes: [data('account', 'a'), data('prediction', 'p'), itemKey('Simple', { id: { S: 'gone' } })],
    });
    expect(
      claimOfRequest(
        'TransactGetItems',
        { TransactItems: [{ Get: { TableName: 'Data', Key: key('a', 'b') } }] },
        schemaOf,
      ),
    ).toEqual({ kind: 'keys', reads: [data('a', 'b')], writes: [] });
    expect(
      claimOfRequest('BatchGetItem', { RequestItems: { Data: { Keys: [key('a', 'b'), key('c', 'd')] } } }, schemaOf),
    ).toEqual({ kind: 'keys', reads: [data('a', 'b'), data('c', 'd')], writes: [] });
    const batch = {
      RequestItems: { Data: [{ PutRequest: { Item: key('a', 'b') } }, { DeleteRequest: { Key: key('c', 'd') } }] },
    };
    expect(claimOfRequest('BatchWriteItem', batch, schemaOf)).toEqual({
      kind: 'keys',
      reads: [],
      writes: [data('a', 'b'), data('c', 'd')],
    });
  });

  it('orders an eventually consistent Query or Scan against barriers only, and a consistent one against everything', () => {
    const free = { kind: 'keys', reads: [], writes: [] };
    expect(claimOfRequest('Query', { TableName: 'Data', IndexName: 'gsi1' }, schemaOf)).toEqual(free);
    expect(claimOfRequest('Scan', { TableName: 'Data' }, schemaOf)).toEqual(free);
    expect(claimOfRequest('Query', { TableName: 'Data', ConsistentRead: true }, schemaOf)).toEqual(BARRIER);
  });

  it('makes a barrier of whatever it cannot tell: other operations, malformed bodies, a put into a table of unknown keys', () => {
    expect(claimOfRequest('CreateTable', { TableName: 'Data' }, schemaOf)).toEqual(BARRIER);
    expect(claimOfRequest('UpdateTimeToLive', { TableName: 'Data' }, schemaOf)).toEqual(BARRIER);
    expect(claimOfRequest('ExecuteStatement', { Statement: 'SELECT * FROM Data' }, schemaOf)).toEqual(BARRIER);
    expect(claimOfRequest('GetItem', undefined, schemaOf)).toEqual(BARRIER);
    expect(claimOfRequest('GetItem', { TableName: 'Data' }, schemaOf)).toEqual(BARRIER);
    expect(claimOfRequest('GetItem', { TableName: 'Data', Key: {} }, schemaOf)).toEqual(BARRIER);
    expect(claimOfRequest('PutItem', { TableName: 'Data', Item: { pk: { S: 'no sort key' } } }, schemaOf)).toEqual(
      BARRIER,
    );
    expect(claimOfRequest('TransactWriteItems', { TransactItems: [{ Upsert: {} }] }, schemaOf)).toEqual(BARRIER);
    expect(claimOfRequest('PutItem', { TableName: 'New', Item: { id: { S: 'x' } } }, schemaOf)).toEqual({
      kind: 'barrier',
      unknownTable: 'New',
    });
  });

  it('reads a key schema partition key first, and refuses one without a partition key', () => {
    expect(
      keyAttributesOf('Data', [
        { AttributeName: 'sk', KeyType: 'RANGE' },
        { AttributeName: 'pk', KeyType: 'HASH' },
      ]),
    ).toEqual(['pk', 'sk']);
    expect(keyAttributesOf('Simple', [{ AttributeName: 'id', KeyType: 'HASH' }])).toEqual(['id']);
    expect(() => keyAttributesOf('Broken', [])).toThrow(/Broken has no partition key/);
  });
});

describe('the DynamoDB request order', () => {
  const body = (value: unknown) => Buffer.from(JSON.stringify(value));
  const put = (id: string) => body({ TableName: 'Simple', Item: { id: { S: id } } });

  it('learns a table’s keys once, on the first put into it (run alone), then orders puts by item', async () => {
    const described: string[] = [];
    const order = dynamoRequestOrder((table) => {
      described.push(table);
      return Promise.resolve(SCHEMAS[table] ?? []);
    });
    const started: string[] = [];
    const gates = new Map<string, () => void>();
    const submit = (name: string, request: Buffer) => {
      const opened = new Promise<void>((resolve) => gates.set(name, resolve));
      return order('PutItem', request, async () => {
        started.push(name);
        await opened;
      });
    };
    const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

    const first = submit('first', put('a'));
    const other = submit('other', put('b'));
    await settle();
    expect(described).toEqual(['Simple']);
    expect(started).toEqual(['first']);
    gates.get('first')?.();
    await first;
    await settle();
    // It arrived before the keys were known: alone too, but nothing is asked twice.
    expect(started).toEqual(['first', 'other']);
    gates.get('other')?.();
    await other;

    // Known now: puts of different items run side by side, puts of one item in turn.
    void submit('c1', put('c'));
    void submit('d', put('d'));
    void submit('c2', put('c'));
    await settle();
    expect(started).toEqual(['first', 'other', 'c1', 'd']);
    expect(described).toEqual(['Simple']);
    gates.get('c1')?.();
    await settle();
    expect(started).toEqual(['first', 'other', 'c1', 'd', 'c2']);
  });

  it('asks again after the table is created anew, and forwards even when the table is not there', async () => {
    const described: string[] = [];
    const order = dynamoRequestOrder((table) => {
      described.push(table);
      return table === 'Simple' ? Promise.resolve(['id']) : Promise.reject(new Error('ResourceNotFoundException'));
    });
    const forwarded: string[] = [];
    const forward = (name: string) => () => {
      forwarded.push(name);
      return Promise.resolve();
    };
    await order('PutItem', put('a'), forward('put'));
    await order('DeleteTable', body({ TableName: 'Simple' }), forward('delete'));
    await order('CreateTable', body({ TableName: 'Simple' }), forward('create'));
    await order('PutItem', put('a'), forward('put again'));
    await order('PutItem', body({ TableName: 'Missing', Item: { id: { S: 'x' } } }), forward('put missing'));
    expect(described).toEqual(['Simple', 'Simple', 'Missing']);
    expect(forwarded).toEqual(['put', 'delete', 'create', 'put again', 'put missing']);
  });
});
