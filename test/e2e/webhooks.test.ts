import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signStandardWebhook, verifyWebhook } from '../../shared/domain/webhook-signature.ts';
import { call, cancelPrediction, createPrediction, pollUntil, runtime } from '../support/api.ts';

interface Delivery {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

interface Attempt {
  webhook_id: string;
  event: string;
  attempt: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  outcome: string;
}

/**
 * A real HTTP receiver on loopback. Paths choose its behaviour: /ok answers 204, /fail/N fails the
 * first N attempts of each webhook id, /always fails, /slow-once takes 12 s the first time,
 * /redirect answers 302, /until-fixed fails until the test fixes it.
 */
const deliveries: Delivery[] = [];
let fixed = false;
const seen = new Map<string, number>();
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const path = req.url ?? '/';
    deliveries.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
    const key = `${path} ${String(req.headers['x-webhook-id'])}`;
    const count = (seen.get(key) ?? 0) + 1;
    seen.set(key, count);
    const failFirst = /^\/fail\/(\d)$/.exec(path);
    if (failFirst) return void res.writeHead(count <= Number(failFirst[1]) ? 500 : 200).end();
    if (path === '/always') return void res.writeHead(503).end();
    if (path === '/redirect') return void res.writeHead(302, { location: '/ok' }).end();
    if (path === '/until-fixed') return void res.writeHead(fixed ? 200 : 500).end();
    if (path === '/slow-once' && count === 1) return void setTimeout(() => res.writeHead(200).end(), 12_000);
    res.writeHead(204).end();
  });
});
let origin = '';
let secret = '';

const deliveriesOf = (id: string) => deliveries.filter((d) => (JSON.parse(d.body) as { id: string }).id === id);

const attemptsOf = async (id: string): Promise<Attempt[]> =>
  (await call<{ attempts: Attempt[] }>(`predictions/${id}/webhooks`)).json.attempts;

const untilAttempts = async (
  id: string,
  done: (attempts: Attempt[]) => boolean,
  timeoutMs = 40_000,
): Promise<Attempt[]> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const attempts = await attemptsOf(id);
    if (done(attempts)) return attempts;
    if (Date.now() > deadline) throw new Error(`webhook attempts for ${id}: ${JSON.stringify(attempts)}`);
    await sleep(200);
  }
};

/** Whether the webhook dead-letter queue holds this prediction's event (peeked, left in place). */
const deadLettered = async (id: string): Promise<boolean> => {
  const { queues, sqsEndpoint } = (await (await fetch(`${runtime().origin}/_local/queues`)).json()) as {
    queues: { logicalId: string; url: string }[];
    sqsEndpoint: string;
  };
  const dlq = queues.find((queue) => queue.logicalId.startsWith('WebhooksDeadLetters'));
  const client = new SQSClient({
    endpoint: sqsEndpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    useQueueUrlAsEndpoint: false,
  });
  const { Messages = [] } = await client.send(
    new ReceiveMessageCommand({
      QueueUrl: dlq?.url,
      MaxNumberOfMessages: 10,
      VisibilityTimeout: 0,
      WaitTimeSeconds: 1,
    }),
  );
  return Messages.some((message) => message.Body?.includes(id));
};

const verifies = (key: string, delivery: Delivery | undefined): boolean =>
  delivery !== undefined &&
  verifyWebhook(
    key,
    {
      id: String(delivery.headers['x-webhook-id']),
      timestamp: String(delivery.headers['x-webhook-timestamp']),
      signature: String(delivery.headers['x-webhook-signature']),
    },
    delivery.body,
    { nowSeconds: Math.floor(Date.now() / 1000) },
  );

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const address = receiver.address();
  origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  secret = (await call<{ key: string }>('webhooks/default/secret')).json.key;
});
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

describe('webhook deliveries', () => {
  it.each([
    ['succeeded', { text: 'hooked' }],
    ['failed', { fail: true }],
  ])('a %s prediction is delivered exactly once, signed, without cost', async (status, input) => {
    const created = await createPrediction({ ...input, webhook: `${origin}/ok` });
    await pollUntil(created.json.id, (p) => p.status === status);
    await untilAttempts(created.json.id, (a) => a.length > 0);
    await sleep(1500);

    const [delivery, ...more] = deliveriesOf(created.json.id);

    expect(more).toEqual([]);
    const body = JSON.parse(delivery?.body ?? '{}') as Record<string, unknown>;
    expect(body).toMatchObject({ id: created.json.id, status, webhook: `${origin}/ok` });
    expect(body).not.toHaveProperty('cost');
    expect(verifies(secret, delivery)).toBe(true);
    expect(delivery?.headers['webhook-id']).toBe(delivery?.headers['x-webhook-id']);
    expect(String(delivery?.headers['webhook-signature'])).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
  });

  it('a canceled prediction is delivered exactly once', async () => {
    const created = await createPrediction({ sleep: 30 }, { headers: { 'x-webhook-url': `${origin}/ok` } });
    await pollUntil(created.json.id, (p) => p.status === 'processing');
    await cancelPrediction(created.json.id);
    await untilAttempts(created.json.id, (a) => a.length > 0);
    await sleep(1500);

    const found = deliveriesOf(created.json.id);

    expect(found).toHaveLength(1);
    expect(JSON.parse(found[0]?.body ?? '{}')).toMatchObject({ status: 'canceled' });
    expect(verifies(secret, found[0])).toBe(true);
  });

  it.each([1, 2, 3])(
    'a receiver that fails the first %i attempts gets it on the next, with the same X-Webhook-ID',
    async (failures) => {
      const created = await createPrediction(
        { text: `fail ${failures}` },
        { headers: { 'webhook-url': `${origin}/fail/${failures}` } },
      );

      const attempts = await untilAttempts(created.json.id, (a) => a.some((x) => x.outcome === 'delivered'));

      expect(attempts.map((a) => a.outcome)).toEqual([...Array<string>(failures).fill('failed'), 'delivered']);
      expect(attempts.map((a) => a.attempt)).toEqual(Array.from({ length: failures + 1 }, (_, i) => i + 1));
      const received = deliveriesOf(created.json.id);
      expect(received).toHaveLength(failures + 1);
      expect(new Set(received.map((d) => d.headers['x-webhook-id'])).size).toBe(1);
      expect(received.every((d) => verifies(secret, d))).toBe(true);
    },
  );

  it('a receiver that always fails gets 4 attempts, then the dead-letter queue; the log shows all 4', async () => {
    const created = await createPrediction({ text: 'always' }, { headers: { 'webhook-url': `${origin}/always` } });

    const attempts = await untilAttempts(created.json.id, (a) => a.some((x) => x.outcome === 'dead_lettered'));
    await sleep(3000);

    expect(attempts.map((a) => [a.attempt, a.status_code, a.outcome])).toEqual([
      [1, 503, 'failed'],
      [2, 503, 'failed'],
      [3, 503, 'failed'],
      [4, 503, 'dead_lettered'],
    ]);
    expect(await attemptsOf(created.json.id)).toHaveLength(4);
    expect(deliveriesOf(created.json.id)).toHaveLength(4);
    expect(await deadLettered(created.json.id)).toBe(true);
  });

  it('a dead-lettered delivery can be redelivered once the receiver is fixed', async () => {
    const created = await createPrediction({ text: 'fix me' }, { headers: { 'webhook-url': `${origin}/until-fixed` } });
    await untilAttempts(created.json.id, (a) => a.some((x) => x.outcome === 'dead_lettered'));
    fixed = true;

    const redelivered = await call(`predictions/${created.json.id}/webhooks/redeliver`, { method: 'POST' });

    expect(redelivered.status).toBe(202);
    const attempts = await untilAttempts(created.json.id, (a) => a.at(-1)?.outcome === 'delivered');
    expect(new Set(attempts.map((a) => a.webhook_id)).size).toBe(1);
    const again = await call(`predictions/${created.json.id}/webhooks/redeliver`, { method: 'POST' });
    expect(again.status).toBe(409);
  });

  it('of three redeliveries of one dead letter asked at once, exactly one is accepted and one chain of attempts runs', async () => {
    const created = await createPrediction({ text: 'race' }, { headers: { 'webhook-url': `${origin}/always` } });
    const first = await untilAttempts(created.json.id, (a) => a.some((x) => x.outcome === 'dead_lettered'));

    const answers = await Promise.all(
      [1, 2, 3].map(() => call(`predictions/${created.json.id}/webhooks/redeliver`, { method: 'POST' })),
    );

    expect(answers.map((a) => a.status).sort()).toEqual([202, 409, 409]);
    for (const refused of answers.filter((a) => a.status === 409))
      expect(refused.json).toMatchObject({ error: { code: 'webhook_not_dead_lettered' } });
    const after = await untilAttempts(
      created.json.id,
      (a) => a.filter((x) => x.outcome === 'dead_lettered').length === 2,
      60_000,
    );
    // A second or third chain would still be trying: none is.
    await sleep(3000);
    expect(await attemptsOf(created.json.id)).toHaveLength(after.length);
    expect(after).toHaveLength(2 * first.length);
  });

  it('a receiver that takes 12 s counts as a failed attempt', async () => {
    const created = await createPrediction({ text: 'slow' }, { headers: { 'webhook-url': `${origin}/slow-once` } });

    const attempts = await untilAttempts(created.json.id, (a) => a.some((x) => x.outcome === 'delivered'), 60_000);

    expect(attempts[0]).toMatchObject({ outcome: 'failed', status_code: null });
    expect(attempts[0]?.error).toContain('no answer within 10 s');
    expect(attempts[0]?.duration_ms).toBeGreaterThanOrEqual(9900);
    expect(attempts[1]?.outcome).toBe('delivered');
  });

  it('a 301/302 answer is not followed', async () => {
    const created = await createPrediction({ text: 'redirect' }, { headers: { 'webhook-url': `${origin}/redirect` } });

    const attempts = await untilAttempts(created.json.id, (a) => a.length >= 2);

    expect(attempts[0]).toMatchObject({ status_code: 302, outcome: 'failed' });
    expect(deliveriesOf(created.json.id).every((d) => d.path === '/redirect')).toBe(true);
  });
});

describe('webhook registration', () => {
  it('accepts the Webhook-URL header, the X-Webhook-URL header and the body field, and echoes it', async () => {
    const variants: { input: Record<string, unknown>; headers: Record<string, string> }[] = [
      { input: {}, headers: { 'webhook-url': `${origin}/ok` } },
      { input: {}, headers: { 'x-webhook-url': `${origin}/ok` } },
      { input: { webhook: `${origin}/ok` }, headers: {} },
    ];
    for (const options of variants) {
      const created = await createPrediction(options.input, { headers: options.headers });
      expect(created.status).toBe(201);
      expect(created.json.webhook).toBe(`${origin}/ok`);
    }
  });

  it('rejects conflicting addresses with 400', async () => {
    const response = await createPrediction(
      { webhook: `${origin}/ok` },
      { headers: { 'x-webhook-url': `${origin}/other` } },
    );
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ error: { code: 'webhook_conflict' } });
  });

  it.each([
    'http://example.com/hook',
    'data:text/plain,hook',
    'https://10.1.2.3/hook',
    'https://169.254.169.254/latest',
  ])('rejects %s with 422', async (webhook) => {
    const response = await createPrediction({ webhook });
    expect(response.status).toBe(422);
    expect(response.json).toMatchObject({ error: { code: 'invalid_input', fields: [{ field: 'webhook' }] } });
  });
});

describe('the signing secret', () => {
  it("is readable by its owner and rotates; during rotation X-Webhook-SIGNATURE is the new secret's alone and webhook-signature carries both", async () => {
    const before = (await call<{ key: string }>('webhooks/default/secret')).json.key;
    const rotated = await call<{ key: string; previous_key_valid_until: string }>('webhooks/default/secret/rotate', {
      method: 'POST',
    });
    expect(rotated.status).toBe(200);
    expect(rotated.json.key).not.toBe(before);
    expect((await call<{ key: string }>('webhooks/default/secret')).json.key).toBe(rotated.json.key);

    const created = await createPrediction({ text: 'rotation' }, { headers: { 'webhook-url': `${origin}/ok` } });
    await untilAttempts(created.json.id, (a) => a.length > 0);
    const [delivery] = deliveriesOf(created.json.id);

    // The header is compared whole (interface: Webhook signing): exactly one signature, by the current secret.
    expect(verifies(rotated.json.key, delivery)).toBe(true);
    expect(verifies(before, delivery)).toBe(false);
    expect(String(delivery?.headers['x-webhook-signature'])).not.toContain(',');
    expect(verifies('whsec_c29tZXRoaW5nIGVsc2U=', delivery)).toBe(false);
    // Standard Webhooks' header carries both, space-separated: the previous secret still verifies there.
    const standard = String(delivery?.headers['webhook-signature']).split(' ');
    const timestamp = Number(delivery?.headers['webhook-timestamp']);
    const id = String(delivery?.headers['webhook-id']);
    expect(standard).toEqual([
      signStandardWebhook(rotated.json.key, id, timestamp, delivery?.body ?? ''),
      signStandardWebhook(before, id, timestamp, delivery?.body ?? ''),
    ]);
  });
});
