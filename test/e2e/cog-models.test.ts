import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { PredictionView } from '../../shared/api/prediction-view.ts';
import { call, cancelPrediction, getPrediction, modelLogOf, pollUntil, untilTerminal } from '../support/api.ts';
import { receiverForFile } from '../support/receiver.ts';
import { fileHostForFile } from '../support/file-host.ts';

/**
 * A Cog predictor brought to the local runtime as a user brings one (global setup: `acme/wordcount`
 * from test/fixtures/cog/wordcount, price 0.02; `acme/broken`, whose setup fails), run by the real
 * coglet in an environment built from its cog.yaml.
 */
const create = (model: string, input: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call<PredictionView>(model, { method: 'POST', body: input, headers });

const receiver = receiverForFile();
const DOCUMENT = 'one two three four five\nsix seven\n';
const filesOrigin = fileHostForFile({ '/document.txt': { contentType: 'text/plain', body: DOCUMENT } });

describe('a Cog predictor brought with --model', () => {
  it('is listed among the models the caller can run, with its price and links', async () => {
    const { status, json } = await call<{
      results: { id: string; price_per_second: number; urls: { model: string } }[];
    }>('models');
    expect(status).toBe(200);
    const ids = json.results.map((model) => model.id);
    expect(ids).toEqual(
      expect.arrayContaining([
        'prognoz/echo',
        'prognoz/stream',
        'openai/whisper-base',
        'acme/wordcount',
        'acme/broken',
      ]),
    );
    const wordcount = json.results.find((model) => model.id === 'acme/wordcount');
    expect(wordcount?.price_per_second).toBe(0.02);
    expect(wordcount?.urls.model).toMatch(/\/api\/v1\/acme\/wordcount$/);
  });

  it('publishes the input and output JSON Schema derived from the predictor signature', async () => {
    type Schema = {
      type?: string;
      anyOf?: Schema[];
      properties?: Record<string, Schema>;
      required?: string[];
      [keyword: string]: unknown;
    };
    const { json } = await call<{ schema: { input: Schema & { properties: Record<string, Schema> }; output: Schema } }>(
      'acme/wordcount',
    );
    const { properties, required } = json.schema.input;
    expect(required).toEqual(['text']);
    expect(properties.text).toMatchObject({
      type: 'string',
      minLength: 1,
      maxLength: 10000,
      description: 'The text to count.',
    });
    expect(properties.unit).toMatchObject({ enum: ['words', 'characters'], default: 'words' });
    expect(properties.repeat).toMatchObject({ type: 'integer', minimum: 1, maximum: 10, default: 1 });
    expect(properties.language).toMatchObject({ type: 'string', pattern: '^[a-z]{2}$', default: 'en' });
    // Optional (nullable) inputs: their type, or null.
    expect(properties.document?.anyOf).toEqual([
      expect.objectContaining({ type: 'string', format: 'uri' }),
      { type: 'null' },
    ]);
    expect(properties.token?.anyOf).toEqual([
      expect.objectContaining({ writeOnly: true, 'x-cog-secret': true }),
      { type: 'null' },
    ]);
    expect(Object.keys(properties)).toEqual(['text', 'unit', 'repeat', 'language', 'document', 'token', 'sleep']);
    expect(json.schema.output).toMatchObject({
      type: 'object',
      properties: { count: { type: 'integer' }, summary: { type: 'string' } },
    });
  });

  it.each([
    [{ text: 'a b', repeat: 11 }, 'repeat'],
    [{ text: 'a b', unit: 'lines' }, 'unit'],
    [{ text: 'a b', language: 'english' }, 'language'],
    [{ text: '' }, 'text'],
    [{}, 'text'],
    [{ text: 'a b', colour: 'red' }, 'colour'],
    [{ text: 'a b', document: 'data:text/plain,hello' }, 'document'],
    [{ text: 'a b', sleep: 'long' }, 'sleep'],
  ])('refuses %j with a 422 naming %s, before anything is queued', async (input, field) => {
    const before = await call<{ results: unknown[] }>('predictions?model=acme/wordcount');
    const { status, json } = await create('acme/wordcount', input);
    expect(status).toBe(422);
    expect(json).toMatchObject({ error: { code: 'invalid_input' } });
    expect(JSON.stringify(json)).toContain(field);
    const after = await call<{ results: unknown[] }>('predictions?model=acme/wordcount');
    expect(after.json.results.length).toBe(before.json.results.length);
  });

  it('runs synchronously: the defaults filled in, the output as the predictor returned it', async () => {
    const { status, json } = await create('acme/wordcount', { text: 'the quick brown fox' }, { prefer: 'wait' });
    expect(status).toBe(201);
    expect(json).toMatchObject({
      status: 'succeeded',
      input: { text: 'the quick brown fox', unit: 'words', repeat: 1, language: 'en', sleep: 0 },
      output: { count: 4, summary: '4 words', document_bytes: null, token_length: null },
    });
    expect(json.metrics?.predict_time).toBeGreaterThan(0);
    expect(json.logs).toContain('counted 4 words');
  });

  it('runs asynchronously: created, then polled to its end, billed at its own price', async () => {
    const { status, json } = await create('acme/wordcount', { text: 'a b c', unit: 'characters', repeat: 2 });
    expect(status).toBe(201);
    const ended = await untilTerminal(json.id, 30_000);
    expect(ended).toMatchObject({ status: 'succeeded', output: { count: 10, summary: '10 characters' } });
    expect(ended.cost).toBeGreaterThan(0);
  });

  it('gets a cog.Path input as a local file fetched by the guarded fetcher', async () => {
    const { json } = await create(
      'acme/wordcount',
      { text: 'zero', document: `${filesOrigin()}/document.txt` },
      { prefer: 'wait' },
    );
    expect(json).toMatchObject({
      status: 'succeeded',
      output: { count: 8, document_bytes: Buffer.byteLength(DOCUMENT) },
    });
    expect(json.input.document).toBe(`${filesOrigin()}/document.txt`);
  });

  it('fails a prediction whose file cannot be fetched, naming the input and why', async () => {
    const missing = await create(
      'acme/wordcount',
      { text: 'x', document: `${filesOrigin()}/missing.txt` },
      { prefer: 'wait' },
    );
    expect(missing.json.status).toBe('failed');
    expect(missing.json.error).toMatch(/document.*HTTP 404/);
    // The guard: a link-local address (the cloud metadata service) is never fetched, even locally.
    const metadata = await create(
      'acme/wordcount',
      { text: 'x', document: 'http://169.254.169.254/latest/meta-data/' },
      { prefer: 'wait' },
    );
    expect(metadata.json.status).toBe('failed');
    expect(metadata.json.error).toMatch(/document.*(private, loopback or link-local)/);
    expect(await modelLogOf(metadata.json.id)).toEqual([]);
    // The model never ran: an input that could not be fetched costs nothing.
    for (const refused of [missing.json, metadata.json]) {
      expect(refused.runtime).toBeNull();
      expect(refused.cost).toBe(0);
    }
  });

  it('never shows a cog.Secret input: redacted in the prediction, its logs and its webhook', async () => {
    const secret = 'sk-this-must-never-show';
    const { json } = await create(
      'acme/wordcount',
      { text: 'a b', token: secret, webhook: `${receiver().url}/secret` },
      { prefer: 'wait' },
    );
    expect(json.status).toBe('succeeded');
    expect(json.output).toMatchObject({ token_length: secret.length });
    expect(json.input.token).toBe('**********');
    expect(json.logs).toContain('using the token **********');
    const read = await getPrediction(json.id);
    expect(JSON.stringify(read.json)).not.toContain(secret);
    await pollUntil(json.id, () => receiver().accepted(json.id).length > 0, 20_000);
    for (const delivery of receiver().accepted(json.id)) expect(delivery.body).not.toContain(secret);
  });

  it('cancels mid-run: coglet stops the run and the prediction ends canceled, billed for what ran', async () => {
    const { json } = await create('acme/wordcount', { text: 'slow', sleep: 60 });
    await pollUntil(json.id, (p) => p.status === 'processing', 30_000);
    await sleep(1000);
    const canceledAt = Date.now();
    const canceled = await cancelPrediction(json.id);
    expect(canceled.status).toBe(200);
    const ended = await untilTerminal(json.id, 10_000);
    expect(ended.status).toBe('canceled');
    expect(Date.now() - canceledAt).toBeLessThan(5000);
    expect(ended.runtime).toBeLessThan(30);
    for (let i = 0; i < 50 && !(await modelLogOf(json.id)).some((line) => line.includes('cancelled')); i++)
      await sleep(100);
    expect((await modelLogOf(json.id)).some((line) => line.includes('cancelled'))).toBe(true);
  });
});

describe('a Cog predictor whose setup fails', () => {
  it('fails its predictions with the reason, never leaving them to wait', async () => {
    const { json } = await create('acme/broken', { text: 'hello' });
    const ended = await untilTerminal(json.id, 60_000);
    expect(ended.status).toBe('failed');
    expect(ended.error).toContain('the weights file weights.bin is missing');
    expect(ended.error).toContain('setup failed');
  });
});
