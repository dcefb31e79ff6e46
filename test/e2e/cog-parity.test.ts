import { describe, expect, it } from 'vitest';
import type { PredictionView } from '../../shared/api/prediction-view.ts';
import { call, pollUntil, untilTerminal } from '../support/api.ts';
import { readStream } from '../support/event-stream.ts';
import { fileHostForFile } from '../support/file-host.ts';
import { receiverForFile } from '../support/receiver.ts';

/**
 * What Cog gives a predictor, given by prognoz too: `acme/runner` (test/fixtures/cog/runner,
 * brought in the global setup) is Cog's current shape — `run: "run.py:Runner"`, a BaseRunner with
 * an async run() — and answers with what it received: each input's Python type, its files read
 * through their own methods, its cog.yaml environment. It records metrics as Cog's docs show.
 */
const MODEL = 'acme/runner';
const text = (body: string) => ({ contentType: 'text/plain', body });
const files = fileHostForFile({
  '/document.txt': text('the quick brown fox'),
  '/page-1.txt': text('first page'),
  '/page-2.txt': text('second page'),
  '/extra.txt': text('an extra'),
  '/attachment.txt': text('attached'),
});
const receiver = receiverForFile();

interface Told {
  value: [string, unknown];
  note: string | null;
  document: [boolean, string, string];
  pages: [boolean, string][] | null;
  extra: [boolean, string] | null;
  attachment: string | null;
  greeting: string | null;
  empty: string | null;
}

const create = (input: Record<string, unknown>) =>
  call<PredictionView & { error?: { code: string; fields?: { field: string }[] } }>(MODEL, {
    method: 'POST',
    body: input,
  });

const run = async (input: Record<string, unknown>) => {
  const created = await create(input);
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  const ended = await untilTerminal(created.json.id, 60_000);
  expect(ended.status, ended.error ?? '').toBe('succeeded');
  return ended;
};

const told = (prediction: PredictionView): Told => JSON.parse(String(prediction.output)) as Told;

describe("Cog's current shape: run: and a BaseRunner", () => {
  it('publishes a union input as Cog does (anyOf), and an Optional without default as nullable, not required', async () => {
    const { json } = await call<{
      schema: { input: { properties: Record<string, Record<string, unknown>>; required: string[] } };
    }>(MODEL);
    const { properties, required } = json.schema.input;
    expect(properties.value?.anyOf).toEqual([{ type: 'string' }, { type: 'integer' }, { type: 'number' }]);
    expect(required).toEqual(['value', 'document']);
    expect(properties.note).toMatchObject({ anyOf: [{ type: 'string' }, { type: 'null' }] });
  });

  it('gives file inputs as Cog gives them: a cog.Path read through its methods, alone, in a list, Optional, and a file object for cog.File', async () => {
    const origin = files();
    const ended = await run({
      value: 3,
      document: `${origin}/document.txt`,
      pages: [`${origin}/page-1.txt`, `${origin}/page-2.txt`],
      extra: `${origin}/extra.txt`,
      attachment: `${origin}/attachment.txt`,
    });
    expect(told(ended)).toEqual({
      value: ['int', 3],
      note: null,
      document: [true, '.txt', 'the quick brown fox'],
      pages: [
        [true, 'first page'],
        [true, 'second page'],
      ],
      extra: [true, 'an extra'],
      attachment: 'attached',
      greeting: 'hello from cog.yaml',
      empty: '',
    });
  });

  it('gives an omitted Optional as None, and a union input with its JSON type; refuses a value of none of its types', async () => {
    const document = `${files()}/document.txt`;
    expect(told(await run({ value: 1.5, document })).value).toEqual(['float', 1.5]);
    expect(told(await run({ value: 'a', document, note: 'noted' }))).toMatchObject({
      value: ['str', 'a'],
      note: 'noted',
      pages: null,
      extra: null,
      attachment: null,
    });
    for (const value of [true, [1], { a: 1 }]) {
      const refused = await create({ value, document });
      expect(refused.status).toBe(422);
      expect(refused.json.error?.code).toBe('invalid_input');
      expect(refused.json.error?.fields?.map((issue) => issue.field)).toEqual(['value']);
    }
  });

  it('ends succeeded with no output when the model returns None for a typed output', async () => {
    const ended = await run({ value: 1, document: `${files()}/document.txt`, empty: true });
    expect(ended.output).toBeNull();
  });

  it("shows the model's own metrics beside predict_time: in GET, the list, the webhook and the event stream", async () => {
    const created = await create({
      value: 2,
      document: `${files()}/document.txt`,
      webhook: `${receiver().url}/metrics`,
    });
    const ended = await untilTerminal(created.json.id, 60_000);
    const expected = { token_count: 4, timing: { read: 0.25 }, words: 2 };
    expect(ended.metrics).toMatchObject(expected);
    expect(typeof ended.metrics?.predict_time).toBe('number');

    const listed = await call<{ results: PredictionView[] }>(`predictions?model=${MODEL}`);
    expect(listed.json.results.find((prediction) => prediction.id === ended.id)?.metrics).toMatchObject(expected);

    await pollUntil(ended.id, () => receiver().accepted(ended.id).length > 0, 20_000);
    const [delivery] = receiver().accepted(ended.id);
    expect((JSON.parse(delivery?.body ?? '{}') as PredictionView).metrics).toMatchObject(expected);

    const stream = await readStream(ended.urls?.stream ?? '');
    const done = stream.events.find((event) => event.event === 'done');
    expect(JSON.parse(done?.data ?? '{}')).toEqual({ metrics: expected });
  });
});
