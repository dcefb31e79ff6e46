import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { PredictionView } from '../../shared/api/prediction-view.ts';
import { signWebhook } from '../../shared/domain/webhook-signature.ts';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { predictionKey } from '../../shared/adapters/table-keys.ts';
import {
  accountOf,
  call,
  createOtherAccount,
  getPrediction,
  insertPrediction,
  localDynamo,
  pollUntil,
  runtime,
  untilTerminal,
} from '../support/api.ts';
import { receiverForFile } from '../support/receiver.ts';
import { readStream } from '../support/event-stream.ts';

const receiver = receiverForFile();

/** Replicate's create route for a model: `{input, ...}` in JSON. */
const createByModel = (
  body: Record<string, unknown>,
  options: { token?: string; headers?: Record<string, string> } = {},
) => call<PredictionView>('models/prognoz/echo/predictions', { method: 'POST', body, ...options });
/** prognoz/stream: a Cog predictor whose output is an iterator of words, as a language model's is. */
const createStreaming = (
  body: Record<string, unknown>,
  options: { token?: string; headers?: Record<string, string> } = {},
) => call<PredictionView>('models/prognoz/stream/predictions', { method: 'POST', body, ...options });

describe('Replicate-style creates', () => {
  it('POST /models/{company}/{model}/predictions with Prefer: wait answers the finished prediction with urls, logs, metrics and version', async () => {
    const created = await createByModel({ input: { text: 'привет' } }, { headers: { prefer: 'wait' } });
    expect(created.status).toBe(201);
    const view = created.json;
    expect(view).toMatchObject({
      status: 'succeeded',
      model: 'prognoz/echo',
      version: 'prognoz/echo',
      output: { text: 'привет' },
      data_removed: false,
    });
    const base = runtime().apiUrl.replace(/\/$/, '');
    expect(view.urls).toEqual({
      get: `${base}/predictions/${view.id}`,
      cancel: `${base}/predictions/${view.id}/cancel`,
      stream: expect.stringMatching(
        new RegExp(`^${base}/predictions/${view.id}/stream\\?key=[0-9a-f-]{36}$`),
      ) as unknown,
    });
    expect(view.logs).toContain('sleeping 0 s');
    expect(view.metrics.predict_time).toBeGreaterThanOrEqual(0);
    expect(view.metrics.total_time).toBeGreaterThanOrEqual(view.metrics.predict_time ?? 0);
    expect(view.started_at).not.toBeNull();
    expect(view.completed_at).not.toBeNull();
    expect(created.headers.get('location')).toBe(`/api/v1/predictions/${view.id}`);
    // The interface's GET shows the same fields.
    expect((await getPrediction(view.id)).json).toMatchObject({
      urls: view.urls,
      logs: view.logs,
      version: 'prognoz/echo',
    });
  });

  it('POST /predictions takes the model as `version`, and says what is wrong with a bad one', async () => {
    const created = await call<PredictionView>('predictions', {
      method: 'POST',
      body: { version: 'prognoz/echo', input: { text: 'v' } },
      headers: { prefer: 'wait=20' },
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ status: 'succeeded', output: { text: 'v' } });

    const missing = await call('predictions', { method: 'POST', body: { input: {} } });
    expect(missing.status).toBe(422);
    expect(missing.json).toMatchObject({ error: { code: 'invalid_input', fields: [{ field: 'version' }] } });
    const unknown = await call('predictions', { method: 'POST', body: { version: 'prognoz/nothing', input: {} } });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ error: { code: 'model_not_found' } });
    const notAnObject = await createByModel({ input: 'hello' });
    expect(notAnObject.status).toBe(422);
    const form = await call('models/prognoz/echo/predictions', {
      method: 'POST',
      body: 'input=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(415);
    const badInput = await createByModel({ input: { repeat: 1000 } });
    expect(badInput.status).toBe(422);
    expect(badInput.json).toMatchObject({ error: { code: 'invalid_input', fields: [{ field: 'repeat' }] } });
  });

  it("shows the model's logs while it runs", async () => {
    const created = await createStreaming({ input: { text: 'a b c d e f', sleep: 3 } });
    const running = await pollUntil(
      created.json.id,
      (p) => p.status === 'processing' && p.logs.includes('streamed piece'),
      20_000,
    );
    expect(running.logs).toMatch(/streamed piece \d\/6/);
    const done = await untilTerminal(created.json.id, 20_000);
    expect(done.logs).toContain('streamed piece 6/6');
  });
});

describe('deadlines (Cancel-After)', () => {
  it('a prediction still running at its deadline ends canceled, naming the deadline, charged for the time it ran', async () => {
    const token = await createOtherAccount({ balanceKopecks: 10_000 });
    const created = await createByModel({ input: { sleep: 60 } }, { token, headers: { 'cancel-after': '5s' } });
    expect(created.status).toBe(201);
    const deadline = created.json.deadline ?? '';
    expect(Date.parse(deadline) - Date.parse(created.json.created_at)).toBe(5000);
    const ended = await untilTerminal(created.json.id, 30_000, { token });
    expect(ended.status).toBe('canceled');
    expect(ended.error).toContain('deadline');
    expect(ended.error).toContain(deadline);
    // Stopped within a few seconds of its deadline, billed for what it ran (0.01 ₽ a second, rounded up).
    expect(Date.parse(ended.completed_at ?? '') - Date.parse(deadline)).toBeLessThan(4000);
    expect(ended.runtime).toBeGreaterThan(2);
    expect(ended.runtime).toBeLessThan(8);
    expect(ended.cost).toBe(Math.ceil(ended.runtime ?? 0) / 100);
    expect((await accountOf(token)).held).toBe(0);
  });

  it('a prediction that never ran by its deadline is canceled by the sweeper, naming the deadline, charged nothing', async () => {
    const token = await createOtherAccount({ balanceKopecks: 10_000 });
    // As if its create died before starting it, 10 s ago, with a 5 s deadline: nothing but the sweeper will look at it.
    const id = await insertPrediction(token, { createdAgoMs: 10_000, cancelAfterSeconds: 5 });
    const ended = await untilTerminal(id, 20_000, { token });
    expect(ended).toMatchObject({ status: 'canceled', runtime: null, cost: 0, started_at: null });
    expect(ended.error).toContain(`deadline (Cancel-After) passed at ${ended.deadline ?? ''}`);
    expect((await accountOf(token)).held).toBe(0);
  });

  it('accepts 30s, 5m, 1h30m and seconds, and refuses anything else or under 5 s without creating anything', async () => {
    const token = await createOtherAccount({ balanceKopecks: 10_000 });
    for (const [header, seconds] of [
      ['1h30m', 5400],
      ['5m', 300],
      ['30s', 30],
      ['45', 45],
    ] as const) {
      const created = await createByModel({ input: {} }, { token, headers: { 'cancel-after': header } });
      expect(created.status).toBe(201);
      expect(Date.parse(created.json.deadline ?? '') - Date.parse(created.json.created_at)).toBe(seconds * 1000);
    }
    const before = await accountOf(token);
    for (const header of ['4s', '0', 'soon', '5x', '-10', '']) {
      const refused = await createByModel({ input: {} }, { token, headers: { 'cancel-after': header } });
      expect(refused.status, header).toBe(400);
      expect(refused.json).toMatchObject({ error: { code: 'invalid_header' } });
    }
    expect((await accountOf(token)).held).toBeLessThanOrEqual(before.held);
  });
});

describe('webhook events filter', () => {
  const deliveriesOf = (id: string) =>
    receiver()
      .accepted(id)
      .map((d) => ({ ...d, webhookId: String(d.headers['x-webhook-id']) }));

  it('sends start, output, logs and completed as asked, each signed, output and logs at most every 500 ms', async () => {
    const secret = (await call<{ key: string }>('webhooks/default/secret')).json.key;
    const created = await createStreaming({
      input: { text: 'one two three four five six seven eight', sleep: 4 },
      webhook: `${receiver().url}/events`,
      webhook_events_filter: ['start', 'output', 'logs', 'completed'],
    });
    expect(created.json.webhook_events_filter).toEqual(['start', 'output', 'logs', 'completed']);
    await untilTerminal(created.json.id, 30_000);
    await pollUntil(
      created.json.id,
      () => deliveriesOf(created.json.id).some((d) => d.webhookId.endsWith('.succeeded')),
      20_000,
    );
    await sleep(500);
    const delivered = deliveriesOf(created.json.id);
    const kinds = delivered.map((d) => d.webhookId.split('.')[1]);
    expect(kinds).toContain('start');
    expect(kinds).toContain('output');
    expect(kinds).toContain('logs');
    expect(kinds.filter((kind) => kind === 'succeeded')).toHaveLength(1);
    for (const d of delivered) {
      const signature = signWebhook(secret, d.webhookId, Number(d.headers['x-webhook-timestamp']), d.body);
      expect(d.headers['x-webhook-signature']).toBe(signature);
    }
    for (const kind of ['output', 'logs']) {
      const times = delivered
        .filter((d) => d.webhookId.split('.')[1] === kind)
        .map((d) => Number(d.webhookId.split('.')[2]))
        .sort((a, b) => a - b);
      for (let i = 1; i < times.length; i++) expect((times[i] ?? 0) - (times[i - 1] ?? 0)).toBeGreaterThanOrEqual(500);
    }
    // An output event carries the output streamed so far; the last delivery is the end.
    const outputs = delivered
      .filter((d) => d.webhookId.split('.')[1] === 'output')
      .map((d) => JSON.parse(d.body) as PredictionView);
    expect(outputs.some((view) => view.status === 'processing')).toBe(true);
    const attempts = (await call<{ attempts: { event: string }[] }>(`predictions/${created.json.id}/webhooks`)).json
      .attempts;
    expect(new Set(attempts.map((attempt) => attempt.event))).toEqual(
      new Set(['start', 'output', 'logs', 'succeeded']),
    );
  });

  it('without completed in the filter, the end is not sent; without a filter, only the end is', async () => {
    const startOnly = await createByModel({
      input: { sleep: 1 },
      webhook: `${receiver().url}/start-only`,
      webhook_events_filter: ['start'],
    });
    const plain = await createStreaming({ input: { text: 'a b c', sleep: 1 }, webhook: `${receiver().url}/plain` });
    await untilTerminal(startOnly.json.id, 20_000);
    await untilTerminal(plain.json.id, 20_000);
    await pollUntil(
      plain.json.id,
      () => deliveriesOf(plain.json.id).length > 0 && deliveriesOf(startOnly.json.id).length > 0,
      20_000,
    );
    await sleep(3000);
    expect(deliveriesOf(startOnly.json.id).map((d) => d.webhookId.split('.')[1])).toEqual(['start']);
    expect(deliveriesOf(plain.json.id).map((d) => d.webhookId.split('.')[1])).toEqual(['succeeded']);
    const bad = await createByModel({ input: {}, webhook: `${receiver().url}/x`, webhook_events_filter: ['finished'] });
    expect(bad.status).toBe(422);
    expect(bad.json).toMatchObject({
      error: { code: 'invalid_input', fields: [{ field: 'webhook_events_filter.0' }] },
    });
  });
});

describe('the event stream (urls.stream)', () => {
  it('streams output pieces as the model makes them, log lines, and done — without a token', async () => {
    const text = 'the quick brown fox jumps over the lazy dog';
    const created = await createStreaming({ input: { text, sleep: 3 } });
    const started = Date.now();
    const response = await fetch(created.json.urls?.stream ?? '', { headers: { accept: 'text/event-stream' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    // Pieces arrive while it runs, not all at the end.
    if (!response.body) throw new Error('no body');
    const firstChunkAt: number[] = [];
    let body = '';
    const decoder = new TextDecoder();
    for await (const bytes of response.body) {
      const chunk = decoder.decode(bytes as Uint8Array, { stream: true });
      if (chunk.includes('event: output')) firstChunkAt.push(Date.now() - started);
      body += chunk;
    }
    const events = body.split('\n\n').filter((block) => block.startsWith('event: '));
    const outputs = events
      .filter((block) => block.startsWith('event: output'))
      .map((block) => /\ndata: (.*)/.exec(block)?.[1] ?? '');
    expect(outputs.join('')).toBe(text);
    expect(outputs.length).toBeGreaterThan(1);
    expect(events.some((block) => block.startsWith('event: logs'))).toBe(true);
    // The model's own metrics ride on done (prognoz/stream records its progress), as on Cog's completed event.
    expect(events.at(-1)).toMatch(/^event: done\nid: \d+\ndata: \{"metrics":\{"progress":1\}\}$/);
    expect(Math.min(...firstChunkAt)).toBeLessThan(Math.max(...firstChunkAt));
  });

  it('a model that streams nothing sends its output once; a failure sends error then done; a wrong key finds nothing', async () => {
    const plain = await createByModel({ input: { text: 'whole' } });
    const whole = await readStream(plain.json.urls?.stream ?? '');
    expect(whole.events.filter((e) => e.event === 'output').map((e) => JSON.parse(e.data) as unknown)).toEqual([
      { text: 'whole', file: null },
    ]);
    expect(whole.events.at(-1)).toMatchObject({ event: 'done', data: JSON.stringify({ metrics: { progress: 1 } }) });

    const failing = await createByModel({ input: { fail: true } });
    const failed = await readStream(failing.json.urls?.stream ?? '');
    expect(failed.events.map((e) => e.event).slice(-2)).toEqual(['error', 'done']);
    expect(failed.events.find((e) => e.event === 'error')?.data).toContain('failed on purpose');

    const canceled = await createByModel({ input: { sleep: 30 } });
    await pollUntil(canceled.json.id, (p) => p.status === 'processing', 20_000);
    const streaming = readStream(canceled.json.urls?.stream ?? '');
    await call(`predictions/${canceled.json.id}/cancel`, { method: 'POST' });
    expect((await streaming).events.at(-1)).toMatchObject({
      event: 'done',
      data: JSON.stringify({ reason: 'canceled' }),
    });

    const wrongKey = await readStream(
      `${runtime().apiUrl}predictions/${plain.json.id}/stream?key=00000000-0000-4000-8000-000000000000`,
    );
    expect(wrongKey.status).toBe(404);
    const noKey = await readStream(`${runtime().apiUrl}predictions/${plain.json.id}/stream`);
    expect(noKey.status).toBe(404);
    // As long as the real key in characters, longer in bytes.
    const otherBytes = await readStream(
      `${runtime().apiUrl}predictions/${plain.json.id}/stream?key=${encodeURIComponent('я'.repeat(36))}`,
    );
    expect(otherBytes.status).toBe(404);
  });
});

describe('data removal after the retention period', () => {
  it('an ended prediction past its retention period reads data_removed, and the sweeper deletes its input, output and logs', async () => {
    const created = await createByModel({ input: { text: 'private words' } }, { headers: { prefer: 'wait' } });
    expect(created.json).toMatchObject({ status: 'succeeded', data_removed: false });
    const dynamo = localDynamo();
    const key = predictionKey(created.json.id);
    const read = async () => (await dynamo.send(new GetCommand({ TableName: runtime().tableName, Key: key }))).Item;
    let before = await read();
    // Once what it owed (its execution's end) is done, its removal is all it waits for.
    for (let tries = 0; !String(before?.sweep_shard).startsWith('DATA#') && tries < 50; tries++) {
      await sleep(100);
      before = await read();
    }
    // Its removal is scheduled at the end of the retention period (30 days here), in the data shards of the sweeper's index.
    expect(String(before?.sweep_shard)).toMatch(/^DATA#/);
    expect(Number(before?.sweep_at) - Date.parse(created.json.completed_at ?? '')).toBeGreaterThan(29 * 86_400_000);
    expect(Number(before?.expires_at) * 1000).toBeGreaterThan(Number(before?.sweep_at));

    // Thirty days pass.
    await dynamo.send(
      new UpdateCommand({
        TableName: runtime().tableName,
        Key: key,
        UpdateExpression: 'SET data_expires_at_ms = :past, sweep_at = :past',
        ExpressionAttributeValues: { ':past': Date.now() - 1000 },
      }),
    );
    const removed = await pollUntil(created.json.id, (p) => p.data_removed, 5000);
    expect(removed).toMatchObject({
      status: 'succeeded',
      input: {},
      output: null,
      logs: '',
      data_removed: true,
      cost: created.json.cost,
    });
    const deadline = Date.now() + 20_000;
    let after: Record<string, unknown> | undefined;
    do {
      await sleep(500);
      after = await read();
    } while (after?.data_removed !== true && Date.now() < deadline);
    expect(after).toMatchObject({ data_removed: true, input_json: '{}', logs: '' });
    for (const kept of ['input', 'output', 'output_json']) expect(after).not.toHaveProperty(kept);
    expect(after).not.toHaveProperty('sweep_shard');
    expect(JSON.stringify(after)).not.toContain('private words');
  });
});
