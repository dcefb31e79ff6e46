import { setTimeout as sleep } from 'node:timers/promises';
import { DeleteMessageCommand, DeleteQueueCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoAccountStore } from '../../shared/adapters/account-store.ts';
import { dynamoDeliveryLog } from '../../shared/adapters/delivery-log.ts';
import { sqsEndingInbox, sqsEndingInboxes, sqsEndingTeller } from '../../shared/adapters/ending-notices.ts';
import { s3DynamoFileStore } from '../../shared/adapters/file-store.ts';
import { s3OutputStore } from '../../shared/adapters/output-store.ts';
import { dynamoPredictionStore } from '../../shared/adapters/prediction-store.ts';
import { dynamoRateWindows } from '../../shared/adapters/rate-limiter.ts';
import { dynamoRequestLog } from '../../shared/adapters/request-log.ts';
import { dynamoDeploymentLog } from '../../shared/adapters/deployment-log.ts';
import { sqsWebhookNotifier } from '../../shared/adapters/webhook-notifier.ts';
import { sfnWorkflowClient } from '../../shared/adapters/workflow-client.ts';
import { committedAttributeOf, heldAttributeOf } from '../../shared/adapters/account-moves.ts';
import { accountKey, LEGACY_OWNER_INDEX_NAME, OWNER_INDEX, spendKey } from '../../shared/adapters/table-keys.ts';
import type { AccountId } from '../../shared/domain/ids.ts';
import { monthOf } from '../../shared/domain/money.ts';
import { ok } from '../../shared/domain/result.ts';
import { webhookMessage } from '../../shared/workflow/messages.ts';
import { failedByWorkflow, freshOwner, MODEL, startingPrediction } from '../support/predictions.ts';
import { countedAttributeOf, INDEX_SETTLED_MS } from '../../shared/adapters/run-counts.ts';

const OTHER_MODEL = 'prognoz/stream';
import { describeAccountStoreContract } from './account-store.contract.ts';
import { describeDeliveryLogContract } from './delivery-log.contract.ts';
import { describeEndingNoticesContract } from './ending-notices.contract.ts';
import { startEmulatedAws, type EmulatedAws } from './emulated-aws.ts';
import { describeFileStoreContract } from './file-store.contract.ts';
import { describeModelExamplesContract } from './model-examples.contract.ts';
import { dynamoModelExamples } from '../../shared/adapters/model-examples.ts';
import { describeOutputStoreContract } from './output-store.contract.ts';
import { describeClaimContract } from './prediction-claim.contract.ts';
import { describePredictionStoreContract, type MakePredictionStore } from './prediction-store.contract.ts';
import { describeRateLimiterContract } from './rate-limiter.contract.ts';
import { describeRequestLogContract } from './request-log.contract.ts';
import { describeDeploymentLogContract } from './deployment-log.contract.ts';
import { describeWebhookNotifierContract } from './webhook-notifier.contract.ts';
import { describeWorkflowClientContract } from './workflow-client.contract.ts';

/**
 * The real adapters, over the emulators the local runtime runs AWS's services with: DynamoDB
 * Local, fauxqs (S3, SQS), the local Step Functions endpoint. Each test gets a table of its own.
 */
let aws: EmulatedAws | undefined;
beforeAll(async () => {
  aws = await startEmulatedAws();
});
afterAll(() => aws?.stop());

const emulated = (): EmulatedAws => {
  if (!aws) throw new Error('the emulators did not start');
  return aws;
};

const dynamoPredictions: MakePredictionStore = async (clock, retentionSeconds) => {
  const { dynamo, freshTable } = emulated();
  const table = await freshTable();
  return {
    store: dynamoPredictionStore(table, dynamo, retentionSeconds, () => clock.now()),
    accounts: dynamoAccountStore(table, dynamo),
  };
};
describePredictionStoreContract('DynamoDB', dynamoPredictions);
describeClaimContract('DynamoDB', dynamoPredictions);

describeAccountStoreContract('DynamoDB', async () =>
  dynamoAccountStore(await emulated().freshTable(), emulated().dynamo),
);

describeDeliveryLogContract('DynamoDB', async (retentionSeconds) =>
  dynamoDeliveryLog(await emulated().freshTable(), emulated().dynamo, retentionSeconds),
);

describeOutputStoreContract('S3', () => Promise.resolve(s3OutputStore(emulated().outputBucket, emulated().s3)));

describeFileStoreContract('S3 and DynamoDB', async (clock) => {
  const { dynamo, s3, outputBucket, freshTable } = emulated();
  return s3DynamoFileStore(await freshTable(), outputBucket, { dynamo, s3 }, () => clock.now());
});

describeModelExamplesContract('DynamoDB', async () =>
  dynamoModelExamples(await emulated().freshTable(), emulated().dynamo),
);

describeWebhookNotifierContract('SQS', async () => {
  const { sqs, freshQueue } = emulated();
  const queueUrl = await freshQueue();
  return {
    notifier: sqsWebhookNotifier(queueUrl, sqs),
    async received() {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
      );
      for (const message of Messages)
        await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle }));
      return Messages.map((message) => webhookMessage.parse(JSON.parse(message.Body ?? 'null')));
    },
  };
});

let waiterPrefixes = 0;
describeEndingNoticesContract('SQS', () => {
  const { sqs } = emulated();
  // Each harness its own prefix: it lists and removes only its own queues.
  const namePrefix = `contract-waiter-${++waiterPrefixes}-`;
  let skippedMs = 0;
  const now = () => Date.now() + skippedMs;
  const report = () => undefined;
  return Promise.resolve({
    inbox: (keepsBytes) => sqsEndingInbox({ namePrefix, now, report, client: sqs, keepsBytes }),
    teller: sqsEndingTeller(report, sqs),
    inboxes: sqsEndingInboxes(namePrefix, sqs),
    vanish: async (address) => {
      await sqs.send(new DeleteQueueCommand({ QueueUrl: address }));
    },
    now,
    elapse: (ms) => sleep(ms),
    later: (ms) => {
      skippedMs += ms;
    },
  });
});

describeWorkflowClientContract('Step Functions', () =>
  Promise.resolve({ workflow: sfnWorkflowClient(emulated().sfn), stateMachineArn: emulated().stateMachineArn }),
);

describeRateLimiterContract('DynamoDB', async () =>
  dynamoRateWindows(await emulated().freshTable(), emulated().dynamo),
);

describeDeploymentLogContract('DynamoDB', async () =>
  dynamoDeploymentLog(await emulated().freshTable(), emulated().dynamo),
);

describeRequestLogContract('DynamoDB', async () => {
  const { dynamo, freshTable } = emulated();
  const table = await freshTable();
  return {
    log: dynamoRequestLog(table, dynamo),
    // Read back from its item: the adapter's own format, which nothing else reads.
    async kept(requestId) {
      const { Items = [] } = await dynamo.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': `REQUESTLOG#${requestId}` },
        }),
      );
      const [item] = Items;
      if (!item) return null;
      return {
        account: String(item.account),
        method: String(item.method),
        path: String(item.path),
        headers: JSON.parse(String(item.headers_json)) as Record<string, string>,
        body: typeof item.body === 'string' ? item.body : null,
        bodyBytes: typeof item.body_bytes === 'number' ? item.body_bytes : null,
        bodyTruncated: item.body_truncated === true,
        expiresAtSeconds: Number(item.expires_at),
      };
    },
  };
});

describe('a table kept from an earlier run (npm start keeps its data)', () => {
  it("is brought to the template's indexes as an update would: the owner index of every attribute gives way to the new one, which lists what the old held", async () => {
    const { dynamo, tableResource, provisionTable } = emulated();
    const indexes = (tableResource.Properties?.GlobalSecondaryIndexes ?? []) as { IndexName: string }[];
    const legacy = {
      ...tableResource,
      Properties: {
        ...tableResource.Properties,
        GlobalSecondaryIndexes: indexes.map((index) =>
          index.IndexName === OWNER_INDEX.name
            ? { ...index, IndexName: LEGACY_OWNER_INDEX_NAME, Projection: { ProjectionType: 'ALL' } }
            : index,
        ),
      },
    };
    const table = `Kept${process.pid}`;
    await provisionTable(table, legacy);
    const owner = freshOwner();
    await dynamoAccountStore(table, dynamo).createAccount(owner, Date.now(), { balanceKopecks: 1000 });
    const store = dynamoPredictionStore(table, dynamo);
    const prediction = startingPrediction({ owner, nowMs: Date.now() });
    expect(await store.insert(prediction, null)).toEqual(ok({ kind: 'inserted' }));

    await provisionTable(table, tableResource);

    const { Table } = await dynamo.send(new DescribeTableCommand({ TableName: table }));
    const kept = Table?.GlobalSecondaryIndexes ?? [];
    expect(kept.map((index) => index.IndexName).sort()).toEqual(indexes.map((index) => index.IndexName).sort());
    expect(kept.find((index) => index.IndexName === OWNER_INDEX.name)?.Projection).toEqual({
      ProjectionType: 'INCLUDE',
      NonKeyAttributes: [...OWNER_INDEX.projected],
    });
    const listed = await store.listOwned(owner, { toward: 'older', limit: 10 });
    expect(listed.predictions.map((p) => p.id)).toEqual([prediction.id]);
  });
});

describe('an account of a table written before the account item counted months (its spend item did)', () => {
  /** Makes the account as an earlier version left it: the month's committed and spent amounts on its spend item alone. */
  const asWrittenBefore = async (table: string, owner: AccountId, month: string) => {
    const { dynamo } = emulated();
    await dynamo.send(
      new UpdateCommand({
        TableName: table,
        Key: accountKey(owner),
        UpdateExpression: 'REMOVE #committed, #held',
        ExpressionAttributeNames: { '#committed': committedAttributeOf(month), '#held': heldAttributeOf(month) },
      }),
    );
    // 60 held by the prediction in flight, 10 spent by one that ended.
    await dynamo.send(
      new UpdateCommand({
        TableName: table,
        Key: spendKey(owner, month),
        UpdateExpression: 'SET committed_kopecks = :committed, spent_kopecks = :spent',
        ExpressionAttributeValues: { ':committed': 70, ':spent': 10 },
      }),
    );
  };
  const setUp = async () => {
    const { dynamo, freshTable } = emulated();
    const table = await freshTable();
    const owner = freshOwner();
    const nowMs = Date.now();
    const accounts = dynamoAccountStore(table, dynamo);
    await accounts.createAccount(owner, nowMs, { balanceKopecks: 1000, monthlyLimitKopecks: 100 });
    const store = dynamoPredictionStore(table, dynamo);
    const held = startingPrediction({ owner, nowMs, holdKopecks: 60 });
    expect(await store.insert(held, 100)).toEqual(ok({ kind: 'inserted' }));
    await asWrittenBefore(table, owner, monthOf(nowMs));
    const month = async () => {
      const { Item = {} } = await dynamo.send(
        new GetCommand({ TableName: table, Key: accountKey(owner), ConsistentRead: true }),
      );
      const spent = (await accounts.getAccount(owner, nowMs))?.spentThisMonthKopecks;
      return { committed: Item[committedAttributeOf(monthOf(nowMs))] as unknown, spent };
    };
    return { store, owner, nowMs, held, month };
  };

  it('reads what the spend item counted until the month is opened on the account item', async () => {
    const { month } = await setUp();
    expect(await month()).toEqual({ committed: undefined, spent: 10 });
  });

  it('holds a create to the limit with what the spend item counted', async () => {
    const { store, owner, nowMs, month } = await setUp();
    const over = await store.insert(startingPrediction({ owner, nowMs, holdKopecks: 40 }), 100);
    expect(over.ok ? over.value : over.error.code).toBe('monthly_limit_reached');
    expect(await month()).toEqual({ committed: 70, spent: 10 });
    expect(await store.insert(startingPrediction({ owner, nowMs, holdKopecks: 30 }), 100)).toEqual(
      ok({ kind: 'inserted' }),
    );
    expect(await month()).toEqual({ committed: 100, spent: 10 });
  });

  it('settles an end that comes first against what the spend item counted', async () => {
    const { store, nowMs, held, month } = await setUp();
    expect(await store.replace(failedByWorkflow(held, nowMs), held)).toBe(true);
    expect(await month()).toEqual({ committed: 10, spent: 10 });
  });
});

describe("an account's runs of a model, counted from the owner index", () => {
  it("keeps the count of what has settled in the index on the month's spend item, and walks only what came since", async () => {
    const { dynamo, freshTable } = emulated();
    const table = await freshTable();
    const owner = freshOwner();
    const at = Date.UTC(2026, 10, 15, 12, 0, 0);
    const accounts = dynamoAccountStore(table, dynamo);
    await accounts.createAccount(owner, at, { balanceKopecks: 1000 });
    const store = dynamoPredictionStore(table, dynamo);
    const made = async (nowMs: number, model = MODEL) =>
      expect(await store.insert(startingPrediction({ owner, nowMs, model }), null)).toEqual(ok({ kind: 'inserted' }));
    const kept = async () => {
      const { Item = {} } = await dynamo.send(
        new GetCommand({ TableName: table, Key: spendKey(owner, monthOf(at)), ConsistentRead: true }),
      );
      return Item[countedAttributeOf(MODEL)] as unknown;
    };
    await made(at);
    await made(at + 1000);
    await made(at + 2000, OTHER_MODEL);
    expect(await accounts.runsThisMonth(owner, MODEL, at + 2000)).toBe(2);
    // Nothing had settled yet: nothing kept.
    expect(await kept()).toBeUndefined();

    const later = at + INDEX_SETTLED_MS + 60_000;
    expect(await accounts.runsThisMonth(owner, MODEL, later)).toBe(2);
    expect(await kept()).toBe(2);
    await made(later);
    expect(await accounts.runsThisMonth(owner, MODEL, later)).toBe(3);
    expect(await accounts.runsThisMonth(owner, OTHER_MODEL, later)).toBe(1);
    expect(await kept()).toBe(2);
    expect(await accounts.runsThisMonth(owner, MODEL, later + INDEX_SETTLED_MS + 1000)).toBe(3);
    expect(await kept()).toBe(3);
    // Another month counts its own.
    expect(await accounts.runsThisMonth(owner, MODEL, Date.UTC(2026, 11, 2))).toBe(0);
  });
});
