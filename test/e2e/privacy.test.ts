import { phaseLimitsOf } from '../../shared/catalog/registry.ts';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { dynamoPredictionStore } from '../../shared/adapters/prediction-store.ts';
import { RECORD_KEPT_AFTER_DATA_SECONDS } from '../../shared/domain/retention.ts';
import { MAX_KEPT_BODY_BYTES } from '../../shared/adapters/request-log.ts';
import { asAccountId, newPredictionId } from '../../shared/domain/ids.ts';
import { createPrediction as newPrediction } from '../../shared/domain/transition.ts';
import { applyEvent } from '../../shared/use-cases/apply-event.ts';
import { call, createPrediction, localDynamo, rawPredictionItem, runtime, untilTerminal } from '../support/api.ts';
import { testCatalog } from '../support/catalog.ts';

const logs = async (): Promise<string> =>
  ((await (await fetch(`${runtime().origin}/_local/logs`)).json()) as { lines: string[] }).lines.join('\n');

describe('privacy', () => {
  it('no input or output value reaches any log line without x-log-request: true', async () => {
    const canary = `canary-${randomUUID()}`;
    const ok = await createPrediction({ text: canary }, { headers: { prefer: 'wait' } });
    const failed = await createPrediction({ text: canary, fail: true }, { headers: { prefer: 'wait' } });
    const invalid = await createPrediction({ text: canary, sleep: 'x' });
    const form = await call('prognoz/echo', {
      body: `text=${canary}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', prefer: 'wait' },
    });

    expect([ok.json.status, failed.json.status, invalid.status, form.json.status]).toEqual([
      'succeeded',
      'failed',
      422,
      'succeeded',
    ]);
    expect(ok.json.output).toEqual({ text: canary, file: null });
    await sleep(1000);
    const captured = await logs();
    // The logs are captured (the worker logged these predictions by id), and hold no value.
    expect(captured).toContain(ok.json.id);
    expect(captured).not.toContain(canary);
  });

  it('with x-log-request: true the request is kept under its x-request-id, for a bounded time, and still not logged', async () => {
    const canary = `canary-${randomUUID()}`;
    const requestId = randomUUID();
    const created = await createPrediction(
      { text: canary },
      { headers: { 'x-log-request': 'true', 'x-request-id': requestId } },
    );
    await untilTerminal(created.json.id);

    const { Items = [] } = await localDynamo().send(
      new QueryCommand({
        TableName: runtime().tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `REQUESTLOG#${requestId}` },
      }),
    );
    expect(Items).toHaveLength(1);
    expect(String(Items[0]?.body)).toContain(canary);
    expect(JSON.parse(String(Items[0]?.headers_json))).toMatchObject({
      'x-log-request': 'true',
      'x-request-id': requestId,
    });
    expect(JSON.parse(String(Items[0]?.headers_json))).not.toHaveProperty('authorization');
    const expiresAt = Number(Items[0]?.expires_at);
    expect(expiresAt * 1000 - Date.now()).toBeGreaterThan(6 * 86_400_000);
    expect(expiresAt * 1000 - Date.now()).toBeLessThanOrEqual(7 * 86_400_000);
    expect(await logs()).not.toContain(canary);
  });

  it('with x-log-request: true a body too large to keep whole is kept in part, and the request is answered as without it', async () => {
    const requestId = randomUUID();
    // Too long a text for the model (422), and a body far past what one table item holds.
    const body = JSON.stringify({ text: 'ж'.repeat(450_000) });
    // A header named as no map key may be (what Schemathesis sent) is kept too.
    const refused = await call('prognoz/echo', {
      body,
      headers: {
        'content-type': 'application/json',
        'x-log-request': 'true',
        'x-request-id': requestId,
        ...Object.fromEntries([['__proto__', '8']]),
      },
    });
    expect(refused.status).toBe(422);
    const { Items = [] } = await localDynamo().send(
      new QueryCommand({
        TableName: runtime().tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `REQUESTLOG#${requestId}` },
      }),
    );
    expect(Items).toHaveLength(1);
    expect(Items[0]).toMatchObject({ body_truncated: true, body_bytes: Buffer.byteLength(body) });
    const kept = String(Items[0]?.body);
    expect(body.startsWith(kept)).toBe(true);
    expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(MAX_KEPT_BODY_BYTES);
    expect(Buffer.byteLength(kept)).toBeGreaterThan(MAX_KEPT_BODY_BYTES - 4);
  });

  it('a finished prediction reads without its input and output after the retention period, even before the sweeper deletes them', async () => {
    const store = dynamoPredictionStore(runtime().tableName, localDynamo(), 1);
    const id = newPredictionId();
    const now = Date.now();
    const created = await store.insert(
      newPrediction({
        id,
        model: 'prognoz/echo',
        owner: asAccountId(runtime().accountId),
        input: { kind: 'inline', value: { text: 'soon gone' } },
        webhook: null,
        nowMs: now,
        hold: { kopecks: 0, month: new Date(now).toISOString().slice(0, 7) },
        limits: phaseLimitsOf(testCatalog.require('prognoz/echo')),
      }),
      null,
    );
    expect(created.ok).toBe(true);
    await applyEvent({ store, catalog: testCatalog }, id, { type: 'claimed', atMs: Date.now(), claim: 'test' });
    await applyEvent({ store, catalog: testCatalog }, id, {
      type: 'succeeded',
      atMs: Date.now(),
      claim: 'test',
      output: { kind: 'inline', value: { text: 'soon gone' } },
      runtimeMs: 1,
    });
    expect((await store.get(id))?.status).toBe('succeeded');

    await sleep(1500);

    const after = await store.get(id);
    expect(after).toMatchObject({
      status: 'succeeded',
      input: {},
      dataRemoved: true,
      output: { kind: 'inline', value: null },
    });
    expect(JSON.stringify(after)).not.toContain('soon gone');
    const raw = await rawPredictionItem(id);
    // The record outlives its data by RECORD_KEPT_AFTER_DATA_SECONDS, then TTL removes it.
    expect(Number(raw.expires_at) * 1000 - Number(raw.data_expires_at_ms)).toBeGreaterThanOrEqual(
      RECORD_KEPT_AFTER_DATA_SECONDS * 1000 - 1000,
    );
  });
});
