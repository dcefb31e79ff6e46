import { CreateBucketCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  CreateQueueCommand,
  ListQueuesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMeteredFauxqs, type MeteredFauxqs } from '../../local/metered-fauxqs.ts';
import { LOCAL_REGION } from '../../local/paths.ts';

/**
 * fauxqs with the meter in its own process (local/metered-fauxqs.ts): every call to the service's
 * endpoints is seen once it is over, a receive's answer with it; calls to fauxqs's own address are
 * not; and a stop leaves nothing listening.
 */
const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
const sqsCalls: { action: string; body: string }[] = [];
const s3Calls: { method: string; path: string }[] = [];
let fauxqs: MeteredFauxqs;
let sqs: SQSClient;
let s3: S3Client;

const sqsAt = (endpoint: string) =>
  new SQSClient({ endpoint, region: LOCAL_REGION, credentials, useQueueUrlAsEndpoint: false, maxAttempts: 1 });

beforeAll(async () => {
  fauxqs = await startMeteredFauxqs({
    region: LOCAL_REGION,
    wantsBody: (action) => action === 'ReceiveMessage',
    observeSqs: (action, body) => sqsCalls.push({ action, body: body.toString('utf8') }),
    observeS3: (method, path) => s3Calls.push({ method, path }),
  });
  sqs = sqsAt(fauxqs.sqsEndpoint);
  s3 = new S3Client({ endpoint: fauxqs.s3Endpoint, region: LOCAL_REGION, credentials, forcePathStyle: true });
});
afterAll(async () => {
  sqs.destroy();
  s3.destroy();
  await fauxqs.stop();
});

describe('fauxqs metered in its own process', () => {
  it('sees each SQS call by its action, and a receive with what it brought', async () => {
    sqsCalls.length = 0;
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: 'metered-jobs' }));
    await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: '{"predictionId":"p-1"}' }));
    const got = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 1 }));
    const none = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 1 }));

    expect(got.Messages?.[0]?.Body).toBe('{"predictionId":"p-1"}');
    expect(none.Messages ?? []).toEqual([]);
    expect(sqsCalls.map(({ action }) => action)).toEqual([
      'CreateQueue',
      'SendMessage',
      'ReceiveMessage',
      'ReceiveMessage',
    ]);
    const [, , brought, empty] = sqsCalls.map(({ body }) => body);
    expect(JSON.parse(brought ?? '{}')).toMatchObject({ Messages: [{ Body: '{"predictionId":"p-1"}' }] });
    expect((JSON.parse(empty ?? '{}') as { Messages?: unknown[] }).Messages ?? []).toEqual([]);
    // Answers the meter does not read are not kept.
    expect(sqsCalls[1]?.body).toBe('');
  });

  it('sees a long poll whose caller left before it was answered, once', async () => {
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: 'metered-left' }));
    sqsCalls.length = 0;
    const leaving = new AbortController();
    const polling = sqs
      .send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 20 }), { abortSignal: leaving.signal })
      .catch((error: unknown) => error);
    await sleep(200);
    leaving.abort();
    await polling;
    for (let i = 0; i < 50 && sqsCalls.length === 0; i++) await sleep(20);

    expect(sqsCalls.map(({ action }) => action)).toEqual(['ReceiveMessage']);
  });

  it('sees each S3 call by its method and path', async () => {
    s3Calls.length = 0;
    await s3.send(new CreateBucketCommand({ Bucket: 'metered' }));
    await s3.send(new PutObjectCommand({ Bucket: 'metered', Key: 'a/b.txt', Body: 'hello' }));
    const object = await s3.send(new GetObjectCommand({ Bucket: 'metered', Key: 'a/b.txt' }));

    expect(await object.Body?.transformToString()).toBe('hello');
    expect(s3Calls.map(({ method, path }) => `${method} ${path.split('?')[0]}`)).toEqual([
      'PUT /metered/',
      'PUT /metered/a/b.txt',
      'GET /metered/a/b.txt',
    ]);
  });

  it('does not count calls to fauxqs’s own address', async () => {
    sqsCalls.length = 0;
    s3Calls.length = 0;
    const direct = sqsAt(fauxqs.address);
    const { QueueUrls } = await direct.send(new ListQueuesCommand({}));
    direct.destroy();

    expect(QueueUrls?.length).toBeGreaterThanOrEqual(2);
    expect(sqsCalls).toEqual([]);
    expect(s3Calls).toEqual([]);
  });

  it('leaves nothing listening once stopped', async () => {
    const other = await startMeteredFauxqs({
      region: LOCAL_REGION,
      wantsBody: () => false,
      observeSqs: () => undefined,
      observeS3: () => undefined,
    });
    const client = sqsAt(other.sqsEndpoint);
    await client.send(new ListQueuesCommand({}));
    await other.stop();

    for (const endpoint of [other.sqsEndpoint, other.s3Endpoint, other.address]) {
      await expect(fetch(endpoint)).rejects.toThrow();
    }
    client.destroy();
  });
});
