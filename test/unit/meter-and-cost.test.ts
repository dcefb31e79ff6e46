import { describe, expect, it } from 'vitest';
import { AWS_PRICES } from '../../bench/aws-prices.ts';
import { callsPerPrediction, dollarsPerThousand, meterDelta } from '../../bench/cost.ts';
import { median, percentile, summarize } from '../../bench/stats.ts';
import { itemSize } from '../../local/dynamodb/item-size.ts';
import { IndexKeyMemory } from '../../local/index-key-memory.ts';
import { CallMeter, combineSnapshots, EMPTY_RECEIVE, itemKinds, transactionUnits } from '../../local/meter.ts';
import { tableDefinitionOf } from '../../local/table-definitions.ts';

describe('the local runtime call meter', () => {
  it('prices a transaction by DynamoDB’s rule: 2 units per item per KB written', () => {
    const small = { Put: { TableName: 't', Item: { pk: { S: 'a' } } } };
    const large = {
      Update: { TableName: 't', Key: { pk: { S: 'b' } }, ExpressionAttributeValues: { ':v': { S: 'x'.repeat(2500) } } },
    };
    expect(transactionUnits('TransactWriteItems', { TransactItems: [small] }, {})).toEqual({
      readUnits: 0,
      writeUnits: 2,
    });
    expect(transactionUnits('TransactWriteItems', { TransactItems: [small, large] }, {})).toEqual({
      readUnits: 0,
      writeUnits: 2 + 6,
    });
    expect(transactionUnits('TransactGetItems', {}, { Responses: [{ Item: { pk: { S: 'a' } } }, {}] })).toEqual({
      readUnits: 4,
      writeUnits: 0,
    });
  });

  it('adds the index writes DynamoDB Local reports for a transaction: what each written item projects there, per KB', () => {
    const tables = new Map([
      [
        't',
        tableDefinitionOf({
          KeySchema: [{ AttributeName: 'pk' }],
          GlobalSecondaryIndexes: [
            { IndexName: 'all', KeySchema: [{ AttributeName: 'owner' }], Projection: { ProjectionType: 'ALL' } },
            { IndexName: 'keys', KeySchema: [{ AttributeName: 'due' }], Projection: { ProjectionType: 'KEYS_ONLY' } },
          ],
        }),
      ],
    ]);
    const put = {
      Put: {
        TableName: 't',
        Item: { pk: { S: 'a' }, owner: { S: 'o' }, due: { N: '1' }, big: { S: 'x'.repeat(1500) } },
      },
    };
    const update = {
      Update: { TableName: 't', Key: { pk: { S: 'b' } }, ExpressionAttributeValues: { ':v': { N: '1' } } },
    };
    const reported = (...indexes: string[]) => ({
      ConsumedCapacity: [
        {
          TableName: 't',
          GlobalSecondaryIndexes: Object.fromEntries(indexes.map((name) => [name, { CapacityUnits: 4 }])),
        },
      ],
    });
    const units = (response: Record<string, unknown>) =>
      transactionUnits('TransactWriteItems', { TransactItems: [put, update] }, response, tables).writeUnits;
    const tableUnits = 2 * 2 + 2;
    // None reported written: the table's units alone, as before.
    expect(units({})).toBe(tableUnits);
    // The whole item (2 KB) into the ALL index, only its keys into the KEYS_ONLY one (1).
    expect(units(reported('all', 'keys'))).toBe(tableUnits + 2 + 1);
    // An index reported written that no written item carries the key of: one unit.
    expect(
      transactionUnits('TransactWriteItems', { TransactItems: [update] }, reported('all'), tables).writeUnits,
    ).toBe(2 + 1);
  });

  it("counts a transaction's Put that moves an item's key in an index twice there: the old entry deleted, the new one put", () => {
    const tables = new Map([
      [
        't',
        tableDefinitionOf({
          KeySchema: [{ AttributeName: 'pk' }],
          GlobalSecondaryIndexes: [
            { IndexName: 'due', KeySchema: [{ AttributeName: 'due' }], Projection: { ProjectionType: 'KEYS_ONLY' } },
          ],
        }),
      ],
    ]);
    const memory = new IndexKeyMemory(tables);
    const put = (due: string) => ({ Put: { TableName: 't', Item: { pk: { S: 'a' }, due: { S: due } } } });
    const written = { ConsumedCapacity: [{ TableName: 't', GlobalSecondaryIndexes: { due: { CapacityUnits: 8 } } }] };
    const units = (due: string) => {
      const request = { TransactItems: [put(due)] };
      const { writeUnits } = transactionUnits('TransactWriteItems', request, written, tables, memory);
      memory.afterCall('TransactWriteItems', request);
      return writeUnits;
    };
    // First seen: a new entry, or one the meter knows nothing of (a lower bound): one unit.
    expect(units('SWEEP#1')).toBe(2 + 1);
    expect(units('DATA#1')).toBe(2 + 2);
    // An Update that names none of the index's keys leaves them known; one that does may have moved them.
    memory.afterCall('UpdateItem', {
      TableName: 't',
      Key: { pk: { S: 'a' } },
      UpdateExpression: 'SET logs = :logs, #p = :p',
      ExpressionAttributeNames: { '#p': 'progress' },
    });
    expect(units('SWEEP#2')).toBe(2 + 2);
    memory.afterCall('UpdateItem', {
      TableName: 't',
      Key: { pk: { S: 'a' } },
      UpdateExpression: 'SET #d = :d',
      ExpressionAttributeNames: { '#d': 'due' },
    });
    expect(units('SWEEP#3')).toBe(2 + 1);
  });

  it('sizes an item as DynamoDB bills it: names and values, numbers by their digits, maps and lists with their overhead', () => {
    expect(itemSize({ pk: { S: 'PREDICTION#1' } })).toBe(2 + 12);
    expect(itemSize({ n: { N: '12345' }, z: { N: '0' }, b: { BOOL: true }, x: { NULL: true } })).toBe(
      1 + 4 + 1 + 2 + 2 + 2,
    );
    expect(itemSize({ m: { M: { a: { S: 'xy' } } } })).toBe(1 + 3 + 1 + 1 + 2);
    expect(itemSize({ l: { L: [{ S: 'ab' }, { N: '7' }] } })).toBe(1 + 3 + (1 + 2) + (1 + 2));
    expect(itemSize({ s: { S: 'é' } })).toBe(1 + 2);
  });

  it('names the kinds of item a call touches, from the table’s key formats', () => {
    const key = (pk: string, sk: string) => ({ pk: { S: pk }, sk: { S: sk } });
    expect(itemKinds('GetItem', { Key: key('ACCOUNT#a', 'SPEND#2026-11') })).toBe('SPEND');
    expect(itemKinds('UpdateItem', { Key: key('RATE#TOKEN#t', '1764072000') })).toBe('RATE');
    expect(itemKinds('PutItem', { Item: key('PREDICTION#p', 'PREDICTION') })).toBe('PREDICTION');
    expect(
      itemKinds('TransactWriteItems', {
        TransactItems: [
          { Update: { Key: key('ACCOUNT#a', 'ACCOUNT') } },
          { Put: { Item: key('PREDICTION#p', 'PREDICTION') } },
        ],
      }),
    ).toBe('ACCOUNT+PREDICTION');
    expect(itemKinds('Query', { IndexName: 'by-owner' })).toBe('by-owner');
  });

  it('reads single-item capacity from the answer, as writes or reads by operation', () => {
    const meter = new CallMeter();
    meter.dynamoCall('GetItem', {}, { ConsumedCapacity: { TableName: 't', CapacityUnits: 0.5 } });
    meter.dynamoCall('UpdateItem', {}, { ConsumedCapacity: { TableName: 't', CapacityUnits: 3 } });
    meter.dynamoCall('UpdateItem', {}, {}); // refused by its condition: counted, no units reported
    meter.dynamoCall(
      'TransactWriteItems',
      { TransactItems: [{ Put: { Item: {} } }, { ConditionCheck: {} }] },
      { ConsumedCapacity: [{ CapacityUnits: 4 }] },
    );
    expect(meter.snapshot().dynamodb).toEqual({
      GetItem: { calls: 1, readUnits: 0.5, writeUnits: 0 },
      UpdateItem: { calls: 2, readUnits: 0, writeUnits: 3 },
      TransactWriteItems: { calls: 1, readUnits: 0, writeUnits: 4 },
    });
  });

  it('counts an empty long poll apart from a receive that brought messages', () => {
    const meter = new CallMeter();
    meter.sqsCall('ReceiveMessage', {});
    meter.sqsCall('ReceiveMessage', { Messages: [] });
    meter.sqsCall('ReceiveMessage', { Messages: [{ Body: '{}' }] });
    meter.sqsCall('DeleteMessage', {});
    expect(meter.snapshot().sqs).toEqual({ [EMPTY_RECEIVE]: 2, ReceiveMessage: 1, DeleteMessage: 1 });
  });

  it('hands out copies: a snapshot does not move with later calls', () => {
    const meter = new CallMeter();
    const before = meter.snapshot();
    meter.stateTransition();
    meter.lambdaInvocation('functions/workflow/finalize.ts', 40);
    expect(before.stepFunctions.transitions).toBe(0);
    expect(meter.snapshot().lambda).toEqual({ 'functions/workflow/finalize.ts': { invocations: 1, totalMs: 40 } });
  });

  it('adds two processes’ meters into one: each counts its own calls, the sum is the whole runtime’s', () => {
    const apiProcess = new CallMeter();
    const emulatorsProcess = new CallMeter();
    apiProcess.apiRequest('GET', '/api/v1/predictions/{id}');
    apiProcess.lambdaInvocation('functions/http/get-prediction.ts', 12);
    apiProcess.executionStarted();
    emulatorsProcess.dynamoCall(
      'GetItem',
      { Key: { pk: { S: 'PREDICTION#1' } } },
      { ConsumedCapacity: { CapacityUnits: 1 } },
    );
    emulatorsProcess.dynamoCall(
      'GetItem',
      { Key: { pk: { S: 'PREDICTION#2' } } },
      { ConsumedCapacity: { CapacityUnits: 0.5 } },
    );
    emulatorsProcess.sqsCall('SendMessage', {});
    const both = combineSnapshots(apiProcess.snapshot(), emulatorsProcess.snapshot(), (a, b) => a + b);
    expect(both.api).toEqual({ 'GET /api/v1/predictions/{id}': 1 });
    expect(both.lambda).toEqual({ 'functions/http/get-prediction.ts': { invocations: 1, totalMs: 12 } });
    expect(both.dynamodb).toEqual({ GetItem: { calls: 2, readUnits: 1.5, writeUnits: 0 } });
    expect(both.dynamodbByItem).toEqual({ 'GetItem PREDICTION': { calls: 2, readUnits: 1.5, writeUnits: 0 } });
    expect(both.sqs).toEqual({ SendMessage: 1 });
    expect(both.stepFunctions.executions).toBe(1);
  });

  it('tells what happened between two snapshots, leaving out what did not move', () => {
    const meter = new CallMeter();
    meter.dynamoCall('GetItem', {}, { ConsumedCapacity: { CapacityUnits: 1 } });
    meter.sqsCall('SendMessage', {});
    const before = meter.snapshot();
    meter.dynamoCall('GetItem', {}, { ConsumedCapacity: { CapacityUnits: 0.5 } });
    meter.dynamoCall('PutItem', {}, { ConsumedCapacity: { CapacityUnits: 2 } });
    const delta = combineSnapshots(meter.snapshot(), before, (a, b) => a - b);
    expect(delta.dynamodb).toEqual({
      GetItem: { calls: 1, readUnits: 0.5, writeUnits: 0 },
      PutItem: { calls: 1, readUnits: 0, writeUnits: 2 },
    });
    expect(delta.sqs).toEqual({});
  });
});

describe('the cost model', () => {
  const scenario = () => {
    const meter = new CallMeter();
    const before = meter.snapshot();
    for (let i = 0; i < 2; i++) {
      meter.apiRequest('POST', '/api/v1/{company}/{model}');
      meter.apiRequest('GET', '/api/v1/predictions/{id}');
      meter.lambdaInvocation('functions/http/create-prediction.ts', 100);
      meter.lambdaInvocation('functions/workflow/finalize.ts', 50);
      meter.dynamoCall('GetItem', {}, { ConsumedCapacity: { CapacityUnits: 1 } });
      meter.dynamoCall('TransactWriteItems', { TransactItems: [{ Put: { Item: {} } }, { Update: {} }] }, {});
      meter.sqsCall('SendMessage', {});
      meter.sqsCall('ReceiveMessage', {});
      meter.s3Call('PutObject');
      meter.s3Call('GetObject');
      meter.s3Call('GetObject');
      meter.executionStarted();
      for (let t = 0; t < 5; t++) meter.stateTransition();
    }
    return meterDelta(meter.snapshot(), before);
  };

  it('turns two predictions’ calls into the calls of one', () => {
    const perPrediction = callsPerPrediction(scenario(), 2, (entry) => (entry.includes('finalize') ? 256 : 512));
    expect(perPrediction).toEqual({
      apiRequests: 2,
      lambdaInvocations: { 'functions/http/create-prediction.ts': 1, 'functions/workflow/finalize.ts': 1 },
      lambdaGbSeconds: 0.5 * 0.1 + 0.25 * 0.05,
      dynamoCalls: { GetItem: 1, TransactWriteItems: 1 },
      dynamoReadUnits: 1,
      dynamoWriteUnits: 4,
      dynamoByItem: {
        'GetItem ?': { calls: 1, readUnits: 1, writeUnits: 0 },
        'TransactWriteItems ?+?': { calls: 1, readUnits: 0, writeUnits: 4 },
      },
      sqsRequests: { SendMessage: 1 },
      s3Requests: { PutObject: 1, GetObject: 2 },
      stateTransitions: 5,
    });
  });

  it('prices them with the list prices, per 1,000 predictions', () => {
    const dollars = dollarsPerThousand(
      callsPerPrediction(scenario(), 2, () => 1024),
      AWS_PRICES,
    );
    expect(dollars.stepFunctions).toBeCloseTo(5 * 0.025, 10);
    expect(dollars.apiGateway).toBeCloseTo((2 * 3.5) / 1000, 10);
    expect(dollars.lambda).toBeCloseTo((2 * 0.2) / 1000 + 1000 * 0.15 * 0.0000133334, 10);
    expect(dollars.dynamodb).toBeCloseTo((4 * 0.625 + 1 * 0.125) / 1000, 10);
    expect(dollars.sqs).toBeCloseTo(0.4 / 1000, 10);
    expect(dollars.s3).toBeCloseTo(0.005 + 2 * 0.0004, 10);
    expect(dollars.total).toBeCloseTo(
      dollars.apiGateway + dollars.lambda + dollars.stepFunctions + dollars.dynamodb + dollars.sqs + dollars.s3,
      10,
    );
  });
});

describe('benchmark statistics', () => {
  it('takes nearest-rank percentiles and the median', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(
      percentile(
        [...values].sort((a, b) => a - b),
        50,
      ),
    ).toBe(50);
    expect(
      percentile(
        [...values].sort((a, b) => a - b),
        99,
      ),
    ).toBe(99);
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(summarize([2, 4]).mean).toBe(3);
    expect(summarize([]).p50).toBeNaN();
  });
});
