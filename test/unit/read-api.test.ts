import { describe, expect, it } from 'vitest';
import { parseModelFlag } from '../../local/brought-models.ts';
import { exampleCopy, presentExample } from '../../shared/api/example-view.ts';
import { readmeOf } from '../../shared/api/model-readme.ts';
import { decodePageCursor, encodePageCursor, pageLinks } from '../../shared/api/page-links.ts';
import type { PredictionView } from '../../shared/api/prediction-view.ts';
import { modelCatalog, repositoryCatalog } from '../../shared/catalog/model-catalog.ts';
import { searchCatalog, wordsOf } from '../../shared/catalog/search.ts';
import { newPredictionId } from '../../shared/domain/ids.ts';
import type { Prediction } from '../../shared/domain/prediction.ts';
import { ExampleRefused, markExample } from '../../shared/use-cases/mark-example.ts';
import { fakeClock } from '../support/in-memory/clock.ts';
import { inMemoryModelExamples } from '../support/in-memory/model-examples.ts';
import { testCatalog } from '../support/catalog.ts';
import { freshOwner, processing, startingPrediction, succeeded } from '../support/predictions.ts';

describe('search of the catalog', () => {
  it('finds a model by every word of the query, its id first, then its description, collections and README', () => {
    const speech = searchCatalog(testCatalog, 'Speech', 20);
    expect(speech.models.map((hit) => hit.model.id)).toEqual(['openai/whisper-base', 'openai/whisper-large-v3-turbo']);
    expect(speech.models[0]?.tags).toEqual(['speech-to-text']);
    expect(speech.collections.map((collection) => collection.slug)).toEqual(['speech-to-text']);
    // Its id names it most surely: "turbo" ranks the turbo first, and only it.
    expect(searchCatalog(testCatalog, 'whisper turbo', 20).models.map((hit) => hit.model.id)).toEqual([
      'openai/whisper-large-v3-turbo',
    ]);
    // A word in its README alone finds it too; every word must be somewhere.
    expect(searchCatalog(testCatalog, 'faster-whisper', 20).models.map((hit) => hit.model.id)).toEqual(
      expect.arrayContaining(['openai/whisper-base']),
    );
    expect(searchCatalog(testCatalog, 'speech echo', 20).models).toEqual([]);
    expect(searchCatalog(testCatalog, 'echo', 1).models.map((hit) => hit.model.id)).toEqual(['prognoz/echo']);
    expect(searchCatalog(testCatalog, '  !! ', 20)).toEqual({ models: [], collections: [] });
    expect(wordsOf('Распознавание речи, whisper-base')).toEqual(['распознавание', 'речи', 'whisper', 'base']);
  });

  it('leaves out a withheld model, in search and in its collections', () => {
    const catalog = modelCatalog({ repository: repositoryCatalog(), withheld: ['openai/whisper-large-v3-turbo'] });
    expect(searchCatalog(catalog, 'whisper', 20).models.map((hit) => hit.model.id)).toEqual(['openai/whisper-base']);
    expect(catalog.collections.find((c) => c.slug === 'speech-to-text')?.models.map((m) => m.id)).toEqual([
      'openai/whisper-base',
    ]);
  });
});

describe('collections of the catalog', () => {
  const repository = repositoryCatalog();

  it('takes a local run’s models into a collection of the manifest, and refuses a join to none', () => {
    const extra = { models: [], derived: {}, joins: [{ collection: 'service-checks', model: 'prognoz/echo' }] };
    expect(() => modelCatalog({ repository, extra })).not.toThrow();
    expect(() =>
      modelCatalog({ repository, extra: { ...extra, joins: [{ collection: 'nowhere', model: 'prognoz/echo' }] } }),
    ).toThrow(
      /joins collection nowhere, which the manifest does not declare \(it has: speech-to-text, service-checks\)/,
    );
  });

  it('refuses a collection of a model the catalog lacks, or a slug twice', () => {
    const broken = (collections: NonNullable<typeof repository.collections>) =>
      modelCatalog({ repository: { ...repository, collections } });
    expect(() => broken([{ slug: 'x', name: 'X', description: 'x', models: ['acme/none'] }])).toThrow(
      /collection x names models the catalog lacks: acme\/none/,
    );
    const twice = { slug: 'x', name: 'X', description: 'x', models: [] };
    expect(() => broken([twice, twice])).toThrow(/collection x is declared twice/);
  });
});

describe('--model with a collection', () => {
  it('joins a collection of the manifest, options in any order; an unknown one is refused, naming those there are', () => {
    expect(parseModelFlag('acme/x=./x,collection=service-checks,price=0.02', '/work')).toEqual({
      id: 'acme/x',
      folder: '/work/x',
      pricePerSecond: '0.02',
      collections: ['service-checks'],
    });
    expect(
      parseModelFlag('acme/x=./x,price=0.02,collection=speech-to-text,collection=service-checks', '/w').collections,
    ).toEqual(['speech-to-text', 'service-checks']);
    expect(() => parseModelFlag('acme/x=./x,collection=nowhere', '/w')).toThrow(
      'there is no collection nowhere in models/manifest.json (it has: speech-to-text, service-checks)',
    );
  });
});

describe("a model's README", () => {
  it('is its predictor folder’s, or a page made of its description, price and inputs', () => {
    expect(readmeOf(testCatalog.require('openai/whisper-base'))).toMatch(/^# openai\/whisper-base\n/);
    const made = readmeOf(testCatalog.require('prognoz/echo'));
    expect(made).toContain('# prognoz/echo');
    expect(made).toContain(testCatalog.require('prognoz/echo').description);
    expect(made).toContain('Price: 0.01 ₽ per second of model time.');
    expect(made).toContain('| `text` | string | `"hello"` | Text to echo back. |');
    expect(made).toContain('| `file` | file (URL) | optional |');
  });
});

describe('page links', () => {
  it('carry an opaque cursor that comes back as it went, and refuse one this API did not give', () => {
    const links = pageLinks('https://api.example.com/api/v1/files', {
      next: '2026-12-06T10:00:00.000Z#abc',
      previous: null,
    });
    expect(links.previous).toBeNull();
    const cursor = new URL(links.next ?? '').searchParams.get('cursor') ?? '';
    expect(decodePageCursor(cursor, /^[\dTZ:.-]+#\w+$/)).toEqual({
      toward: 'next',
      position: '2026-12-06T10:00:00.000Z#abc',
    });
    expect(decodePageCursor(cursor, /^nothing$/)).toBeNull();
    expect(decodePageCursor('!!', /./)).toBeNull();
    expect(decodePageCursor(Buffer.from('{"toward":"sideways","position":"x"}').toString('base64url'), /./)).toBeNull();
    expect(decodePageCursor(encodePageCursor({ toward: 'previous', position: 'x' }), /^x$/)).toEqual({
      toward: 'previous',
      position: 'x',
    });
  });
});

describe('an example', () => {
  const view: PredictionView = {
    id: 'p1',
    model: 'acme/reader',
    version: 'acme/reader',
    input: {
      audio: 'https://bucket.example.com/private/a.flac?X-Amz-Signature=secret#t=1',
      audios: ['https://user:pass@example.com/b.wav?token=secret', 'data:audio/wav;base64,AAAA'],
      token: '**********',
      text: 'https://example.com/?not=a-file',
    },
    status: 'succeeded',
    output: { text: 'done' },
    error: null,
    source: 'api',
    runtime: 1.5,
    cost: 0.07,
    created_at: '2026-12-06T10:00:00.000Z',
    started_at: '2026-12-06T10:00:01.000Z',
    completed_at: '2026-12-06T10:00:03.000Z',
    webhook: 'https://hooks.example.com/secret-path',
    webhook_events_filter: ['completed'],
    urls: { get: 'https://api/p1', cancel: 'https://api/p1/cancel', stream: 'https://api/p1/stream?key=k' },
    logs: 'printed the token: t0ps3cret',
    metrics: { predict_time: 1.5 },
    data_removed: false,
  };

  it('copies what any caller may see: file URLs without their query, no logs, webhook, cost or URLs', () => {
    const copy = exampleCopy(view, {
      files: [
        { name: 'audio', list: false },
        { name: 'audios', list: true },
      ],
    });
    expect(copy.input).toEqual({
      audio: 'https://bucket.example.com/private/a.flac',
      audios: ['https://example.com/b.wav', 'data:audio/wav;base64,AAAA'],
      token: '**********',
      text: 'https://example.com/?not=a-file',
    });
    expect(copy).toMatchObject({
      id: 'p1',
      status: 'succeeded',
      output: { text: 'done' },
      logs: '',
      metrics: { predict_time: 1.5 },
    });
    for (const kept of ['webhook', 'webhook_events_filter', 'urls', 'cost']) expect(copy).not.toHaveProperty(kept);
    expect(JSON.stringify(copy)).not.toMatch(/secret|t0ps3cret|pass/);
  });

  it('is made of a succeeded prediction of its model alone', async () => {
    const clock = fakeClock();
    const owner = freshOwner();
    const ended = succeeded(
      processing(startingPrediction({ owner, nowMs: clock.now() }), clock.now()),
      clock.now() + 5000,
    );
    const failedOne = startingPrediction({ owner, nowMs: clock.now() });
    const kept = new Map<string, Prediction>([
      [ended.id, ended],
      [failedOne.id, failedOne],
    ]);
    const examples = inMemoryModelExamples();
    const deps = {
      store: { get: (id: string) => Promise.resolve(kept.get(id) ?? null) },
      outputs: null,
      examples,
      catalog: testCatalog,
      clock,
      copyOf: presentExample(testCatalog),
    };
    await markExample(deps, 'prognoz/echo', ended.id);
    const [example] = (await examples.list('prognoz/echo', { limit: 5 })).items;
    expect(example?.prediction).toMatchObject({
      id: ended.id,
      model: 'prognoz/echo',
      status: 'succeeded',
      output: 'done',
    });
    expect(example?.prediction).not.toHaveProperty('cost');
    const refusal = (model: string, id: string) => markExample(deps, model, id).catch((error: unknown) => error);
    expect(await refusal('prognoz/stream', ended.id)).toEqual(
      new ExampleRefused(`prediction ${ended.id} is of prognoz/echo, not of prognoz/stream`),
    );
    expect(String(await refusal('prognoz/echo', failedOne.id))).toMatch(
      /is starting: only a succeeded prediction is an example/,
    );
    expect(String(await refusal('prognoz/echo', newPredictionId()))).toMatch(/there is no prediction/);
    expect(String(await refusal('acme/none', ended.id))).toMatch(/there is no model acme\/none/);
  });
});
