import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { PredictionView } from '../../shared/api/prediction-view.ts';
import {
  call,
  cancelPrediction,
  getPrediction,
  modelLogOf,
  pollUntil,
  processes,
  untilTerminal,
} from '../support/api.ts';
import { LONG_MODEL_ID } from '../support/long-model-id.ts';

/**
 * Cog predictors in the shapes of Cog's own examples, brought to the local runtime with --model
 * (global setup) and run by the real coglet: LONG_MODEL_ID is a plain function (`predict.py:run`,
 * test/fixtures/cog/function), `acme/async-stream` an `async def predict` generator with
 * `concurrency.max: 2` (test/fixtures/cog/async-stream), whose every piece tells when its run
 * started and when the piece was made (the model server's clock, in seconds).
 */
const create = (model: string, input: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call<PredictionView>(model, { method: 'POST', body: input, headers });

const SHOUT = LONG_MODEL_ID;
const COUNTER = 'acme/async-stream';

/** The run of an acme/async-stream prediction as its pieces tell it. */
interface CountedRun {
  readonly id: string;
  readonly startedAt: number;
  /** When its last piece was made: its run ends right after. */
  readonly endedAt: number;
  readonly pieces: readonly string[];
}

const PIECE = /^(\S+) (\d+)\/(\d+) started=([\d.]+) at=([\d.]+)$/;

const countedRun = (prediction: PredictionView): CountedRun => {
  const pieces = prediction.output as string[];
  expect(pieces.length).toBeGreaterThan(0);
  const parsed = pieces.map((piece) => {
    const match = PIECE.exec(piece);
    if (!match) throw new Error(`not a piece of acme/async-stream: ${piece}`);
    return { started: Number(match[4]), at: Number(match[5]) };
  });
  return {
    id: prediction.id,
    startedAt: parsed[0]?.started ?? NaN,
    endedAt: parsed.at(-1)?.at ?? NaN,
    pieces,
  };
};

describe('a function predictor (predict.py:run)', () => {
  it('publishes the schema of its parameters, constraints, choices and defaults included', async () => {
    type Property = Record<string, unknown>;
    const { status, json } = await call<{
      schema: { input: { properties: Record<string, Property>; required?: string[] }; output: Property };
    }>(SHOUT);
    expect(status).toBe(200);
    const { properties, required } = json.schema.input;
    expect(Object.keys(properties)).toEqual(['text', 'times', 'separator', 'sleep']);
    expect(required).toEqual(['text']);
    expect(properties.text).toMatchObject({ type: 'string', minLength: 1, description: 'The text to shout.' });
    expect(properties.times).toMatchObject({ type: 'integer', minimum: 1, maximum: 5, default: 1 });
    expect(properties.separator).toMatchObject({ enum: ['space', 'newline'], default: 'space' });
    expect(json.schema.output).toMatchObject({ type: 'string' });
  });

  it.each([
    [{ text: 'hi', times: 9 }, 'times'],
    [{ text: 'hi', separator: 'tab' }, 'separator'],
    [{ text: '' }, 'text'],
    [{}, 'text'],
    [{ text: 'hi', volume: 11 }, 'volume'],
  ])('refuses %j with a 422 invalid_input naming %s', async (input, field) => {
    const { status, json } = await create(SHOUT, input);
    expect(status).toBe(422);
    expect(json).toMatchObject({ error: { code: 'invalid_input' } });
    expect(JSON.stringify(json)).toContain(field);
  });

  it('runs synchronously with Prefer: wait, the defaults filled in', async () => {
    const { status, json } = await create(SHOUT, { text: 'hey', times: 3 }, { prefer: 'wait' });
    expect(status).toBe(201);
    expect(json).toMatchObject({
      status: 'succeeded',
      input: { text: 'hey', times: 3, separator: 'space', sleep: 0 },
      output: 'HEY HEY HEY',
    });
    expect(json.logs).toContain("shouting 'hey' 3 times");
  });

  it('runs asynchronously: created, then polled to its end', async () => {
    const { status, json } = await create(SHOUT, { text: 'a', times: 2, separator: 'newline' });
    expect(status).toBe(201);
    const ended = await untilTerminal(json.id, 30_000);
    expect(ended).toMatchObject({ status: 'succeeded', output: 'A\nA' });
    expect(ended.cost).toBeGreaterThan(0);
  });

  it('cancels mid-run: coglet stops the function and the prediction ends canceled', async () => {
    const { json } = await create(SHOUT, { text: 'slow', sleep: 60 });
    await pollUntil(json.id, (p) => p.status === 'processing', 30_000);
    const canceled = await cancelPrediction(json.id);
    expect(canceled.status).toBe(200);
    const ended = await untilTerminal(json.id, 15_000);
    expect(ended.status).toBe('canceled');
    expect(ended.output).toBeNull();
    const cancelled = async () => (await modelLogOf(json.id)).some((line) => line.includes('cancelled'));
    for (let i = 0; i < 50 && !(await cancelled()); i++) await sleep(100);
    expect(await cancelled()).toBe(true);
  });
});

describe('an async predictor with concurrency.max 2', () => {
  it('is served by one model server', async () => {
    const servers = (await processes()).filter((process) => process.name === `model:${COUNTER}`);
    expect(servers).toHaveLength(1);
  });

  it('runs two predictions at once on it while a third waits for a free slot', async () => {
    const input = (label: string) => ({ label, count: 6, interval: 1 });
    const created = await Promise.all(['one', 'two', 'three'].map((label) => create(COUNTER, input(label))));
    for (const { status } of created) expect(status).toBe(201);
    const ids = created.map(({ json }) => json.id);

    // Two are processing together while the third is not yet taken.
    const statuses = async () => Promise.all(ids.map(async (id) => (await getPrediction(id)).json.status));
    let seen = await statuses();
    for (let i = 0; i < 300 && seen.filter((status) => status === 'processing').length < 2; i++) {
      await sleep(100);
      seen = await statuses();
    }
    expect(seen.filter((status) => status === 'processing')).toHaveLength(2);
    expect(seen.filter((status) => status === 'starting' || status === 'queued')).toHaveLength(1);

    const ended = await Promise.all(ids.map((id) => untilTerminal(id, 60_000)));
    for (const prediction of ended) expect(prediction).toMatchObject({ status: 'succeeded', error: null });
    const [first, second, third] = ended.map(countedRun).sort((a, b) => a.startedAt - b.startedAt);
    if (!first || !second || !third) throw new Error('three runs expected');
    // The first two overlap: each started before the other ended.
    expect(second.startedAt).toBeLessThan(first.endedAt);
    expect(first.startedAt).toBeLessThan(second.endedAt);
    // The third started only when one of them had ended and freed its slot.
    expect(third.startedAt).toBeGreaterThanOrEqual(Math.min(first.endedAt, second.endedAt));
    for (const run of [first, second, third]) expect(run.pieces).toHaveLength(6);
  });

  // coglet 0.23.1 gathers an async generator's items and sends them when it ends (a sync
  // generator's come as they are made: prognoz/stream), so this asserts the pieces, not their timing.
  it("sends an async generator's pieces over the event stream, one output event each, in order", async () => {
    const { json } = await create(COUNTER, { label: 'streamed', count: 5, interval: 0.2 });
    const response = await fetch(json.urls?.stream ?? '', { headers: { accept: 'text/event-stream' } });
    expect(response.status).toBe(200);
    const events = (await response.text()).split('\n\n').filter((block) => block.startsWith('event: '));
    const outputs = events
      .filter((block) => block.startsWith('event: output'))
      .map((block) => /\ndata: (.*)/.exec(block)?.[1] ?? '');
    expect(outputs.map((piece) => piece.split(' ').slice(0, 2).join(' '))).toEqual([
      'streamed 1/5',
      'streamed 2/5',
      'streamed 3/5',
      'streamed 4/5',
      'streamed 5/5',
    ]);
    expect(events.at(-1)).toMatch(/^event: done\n/);
    const ended = await untilTerminal(json.id, 30_000);
    expect(ended.status).toBe('succeeded');
    expect(ended.output).toEqual(outputs);
  });

  it('cancels the one of two running predictions it is asked to; the other runs to its end', async () => {
    const [long, short] = await Promise.all([
      create(COUNTER, { label: 'long', count: 30, interval: 1 }),
      create(COUNTER, { label: 'short', count: 4, interval: 1 }),
    ]);
    const longId = long.json.id;
    const shortId = short.json.id;
    await Promise.all([longId, shortId].map((id) => pollUntil(id, (p) => p.status === 'processing', 30_000)));
    const canceled = await cancelPrediction(longId);
    expect(canceled.status).toBe(200);
    expect((await untilTerminal(longId, 15_000)).status).toBe('canceled');
    const other = await untilTerminal(shortId, 30_000);
    expect(other.status).toBe('succeeded');
    expect(countedRun(other).pieces).toHaveLength(4);
    // coglet cancelled the one it was asked to, and only that one.
    const cancelLines = async (id: string) => (await modelLogOf(id)).filter((line) => /cancel/i.test(line));
    for (let i = 0; i < 50 && (await cancelLines(longId)).length === 0; i++) await sleep(100);
    expect(await cancelLines(longId)).not.toHaveLength(0);
    expect(await cancelLines(shortId)).toEqual([]);
  });
});
