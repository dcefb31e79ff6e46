import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoAccountStore } from '../../shared/adapters/account-store.ts';
import { asAccountId } from '../../shared/domain/ids.ts';
import { verifyWebhook } from '../../shared/domain/webhook-signature.ts';
import { cancelPrediction, createPrediction, pollUntil, runtime } from '../support/api.ts';

interface Delivery {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

describe('webhooks (the workflow Notify step → webhook queue → sender)', () => {
  const deliveries: Delivery[] = [];
  let server: Server;
  let url = '';
  let secret = '';

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        deliveries.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hook`;
    const { dynamoEndpoint, tableName, accountId } = runtime();
    const client = DynamoDBDocumentClient.from(
      new DynamoDBClient({ endpoint: dynamoEndpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
    );
    secret = (await dynamoAccountStore(tableName, client).signingSecret(asAccountId(accountId))) ?? '';
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const deliveriesFor = async (id: string, count = 1): Promise<Delivery[]> => {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const found = deliveries.filter((d) => (JSON.parse(d.body) as { id: string }).id === id);
      if (found.length >= count || Date.now() > deadline) {
        await sleep(1000); // and no more arrive after it
        return deliveries.filter((d) => (JSON.parse(d.body) as { id: string }).id === id);
      }
      await sleep(100);
    }
  };

  it.each([
    ['succeeded', { text: 'hooked' }],
    ['failed', { fail: true }],
  ])('a %s prediction is delivered once, signed, without cost', async (status, input) => {
    const created = await createPrediction({ ...input, webhook: url });
    await pollUntil(created.json.id, (p) => p.status === status);

    const [delivery, ...more] = await deliveriesFor(created.json.id);

    expect(more).toEqual([]);
    expect(delivery).toBeDefined();
    const body = JSON.parse(delivery?.body ?? '{}') as Record<string, unknown>;
    expect(body).toMatchObject({ id: created.json.id, status, webhook: url });
    expect(body).not.toHaveProperty('cost');
    const headers = delivery?.headers ?? {};
    expect(
      verifyWebhook(
        secret,
        { id: String(headers['x-webhook-id']), timestamp: String(headers['x-webhook-timestamp']), signature: String(headers['x-webhook-signature']) },
        delivery?.body ?? '',
        { nowSeconds: Math.floor(Date.now() / 1000) },
      ),
    ).toBe(true);
  });

  it('a canceled prediction is delivered once', async () => {
    const created = await createPrediction({ sleep: 30 }, { headers: { 'x-webhook-url': url } });
    await pollUntil(created.json.id, (p) => p.status === 'processing');
    await cancelPrediction(created.json.id);

    const found = await deliveriesFor(created.json.id);

    expect(found).toHaveLength(1);
    expect(JSON.parse(found[0]?.body ?? '{}')).toMatchObject({ status: 'canceled', webhook: url });
  });
});
