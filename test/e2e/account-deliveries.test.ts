import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDeliveryLog } from '../../shared/adapters/delivery-log.ts';
import { DEFAULT_RETENTION_SECONDS, RECORD_KEPT_AFTER_DATA_SECONDS } from '../../shared/domain/retention.ts';
import { predictionKey } from '../../shared/adapters/table-keys.ts';
import type { AccountDeliveries } from '../../shared/api/webhook-views.ts';
import { asAccountId, newPredictionId } from '../../shared/domain/ids.ts';
import {
  accountOf,
  call,
  createOtherAccount,
  createPrediction,
  localDynamo,
  runtime,
  untilTerminal,
} from '../support/api.ts';
import { newAccountWithOwner } from '../support/owners.ts';
import { receiverForFile } from '../support/receiver.ts';

const receiver = receiverForFile();

const deliveriesOf = (token: string, path = 'webhooks/default/deliveries') =>
  call<AccountDeliveries & { error?: { code: string } }>(path, { token });

/** The page's link as a path the test client calls (it is absolute, on the same API). */
const pathOf = (next: string) => next.slice(runtime().apiUrl.length);

describe("an account's webhook deliveries across its predictions (GET /webhooks/default/deliveries)", () => {
  it('lists every prediction’s attempts, newest first, to an API token and the owner alike; another account sees none', async () => {
    const { apiToken, session } = await newAccountWithOwner();
    const first = await createPrediction({ text: 'one', webhook: `${receiver().url}/first` }, { token: apiToken });
    await untilTerminal(first.json.id, 30_000, { token: apiToken });
    const second = await createPrediction({ text: 'two', webhook: `${receiver().url}/second` }, { token: apiToken });
    await untilTerminal(second.json.id, 30_000, { token: apiToken });

    const deadline = Date.now() + 30_000;
    let listed = await deliveriesOf(apiToken);
    while (listed.json.results.length < 2 && Date.now() < deadline) {
      await sleep(200);
      listed = await deliveriesOf(apiToken);
    }

    expect(listed.status).toBe(200);
    expect(listed.json.next).toBeNull();
    expect(listed.json.results.map((attempt) => attempt.prediction_id)).toEqual([second.json.id, first.json.id]);
    for (const attempt of listed.json.results) {
      expect(attempt).toMatchObject({
        model: 'prognoz/echo',
        event: 'succeeded',
        attempt: 1,
        status_code: 204,
        outcome: 'delivered',
        error: null,
      });
      const own = await call<{ attempts: { webhook_id: string; at: string }[] }>(
        `predictions/${attempt.prediction_id}/webhooks`,
        { token: apiToken },
      );
      expect(own.json.attempts).toEqual([expect.objectContaining({ webhook_id: attempt.webhook_id, at: attempt.at })]);
    }
    expect((await deliveriesOf(session)).json).toEqual(listed.json);

    const stranger = await deliveriesOf(await createOtherAccount());
    expect(stranger.status).toBe(200);
    expect(stranger.json).toEqual({ results: [], next: null });
    const local = await deliveriesOf(runtime().apiToken);
    expect(local.json.results.map((attempt) => attempt.prediction_id)).not.toContain(first.json.id);
  });

  it(`pages through many attempts, newest first, with the next link, whichever shards they fell in`, async () => {
    const token = await createOtherAccount();
    const account = asAccountId((await accountOf(token)).id);
    const log = dynamoDeliveryLog(runtime().tableName, localDynamo());
    const startMs = Date.now() - 60_000;
    const recorded = [];
    for (let n = 0; n < 60; n++) {
      const prediction = { id: newPredictionId(), owner: account, model: 'prognoz/echo' };
      // Two attempts at the same millisecond: the attempt's own id orders them, and neither is lost between pages.
      const atMs = startMs + Math.floor(n / 2) * 10;
      await log.record(prediction, {
        webhookId: `msg_${n}`,
        event: 'succeeded',
        attempt: 1,
        atMs,
        durationMs: 5,
        statusCode: 200,
        error: null,
        outcome: 'delivered',
      });
      recorded.push({ predictionId: prediction.id, atMs });
    }

    const first = await deliveriesOf(token);
    expect(first.json.results).toHaveLength(50);
    expect(first.json.next).not.toBeNull();
    const second = await deliveriesOf(token, pathOf(first.json.next ?? ''));
    expect(second.json.results).toHaveLength(10);
    expect(second.json.next).toBeNull();

    const pages = [...first.json.results, ...second.json.results];
    expect(new Set(pages.map((attempt) => attempt.prediction_id))).toEqual(
      new Set(recorded.map((r) => r.predictionId)),
    );
    const times = pages.map((attempt) => Date.parse(attempt.at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(times[0]).toBe(recorded.at(-1)?.atMs);
  });

  it('keeps an attempt as long as its prediction’s record (TTL), and lists none past that', async () => {
    const token = await createOtherAccount();
    const account = asAccountId((await accountOf(token)).id);
    const log = dynamoDeliveryLog(runtime().tableName, localDynamo());
    // The runtime the tests start keeps the default retention.
    const keptSeconds = DEFAULT_RETENTION_SECONDS + RECORD_KEPT_AFTER_DATA_SECONDS;
    const attempt = {
      event: 'succeeded',
      attempt: 1,
      durationMs: 5,
      statusCode: 200,
      error: null,
      outcome: 'delivered',
    } as const;
    const recent = { id: newPredictionId(), owner: account, model: 'prognoz/echo' };
    const old = { id: newPredictionId(), owner: account, model: 'prognoz/echo' };
    const nowMs = Date.now();
    await log.record(recent, { ...attempt, webhookId: 'msg_recent', atMs: nowMs });
    await log.record(old, { ...attempt, webhookId: 'msg_old', atMs: nowMs - (keptSeconds + 60) * 1000 });

    const listed = await deliveriesOf(token);
    expect(listed.json.results.map((entry) => entry.prediction_id)).toEqual([recent.id]);
    const { Items = [] } = await localDynamo().send(
      new QueryCommand({
        TableName: runtime().tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': predictionKey(recent.id).pk },
      }),
    );
    expect(Items[0]?.expires_at).toBe(Math.floor(nowMs / 1000) + keptSeconds);
  });

  it('refuses a cursor it did not give out (400 invalid_query)', async () => {
    for (const cursor of ['not-a-cursor', Buffer.from('2026-11-21T18:27:49.123000Z#x').toString('base64url'), '%%%']) {
      const response = await deliveriesOf(
        runtime().apiToken,
        `webhooks/default/deliveries?cursor=${encodeURIComponent(cursor)}`,
      );
      expect(response.status, cursor).toBe(400);
      expect(response.json.error?.code).toBe('invalid_query');
    }
  });
});
