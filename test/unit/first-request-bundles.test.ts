import { describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { bundledFiles } from '../../bench/bundles.ts';
import { ReadableStream as LazyReadableStream } from '../../functions/http/lazy-web-streams.ts';
import * as z from '../../shared/zod-mini.ts';

/**
 * The functions a first request after idle starts: the authorizer, then its route (issue 58). Each
 * is bundled as deployed; what the bundle holds is what the cold start compiles and runs.
 */
const FIRST_REQUEST = [
  'functions/authorizer.ts',
  'functions/http/create-prediction.ts',
  'functions/http/get-prediction.ts',
  'functions/http/stream-prediction.ts',
];
/** And the function that sends a webhook, which the first prediction to end after idle starts. */
const FIRST_WEBHOOK = 'functions/webhooks/send-webhooks.ts';
/** And the routes a Replicate client may call first: models.get and .list, files.create and the file reads, predictions.list. */
const CLIENTS_FIRST = [
  'functions/http/get-model.ts',
  'functions/http/list-models.ts',
  'functions/http/upload-file.ts',
  'functions/http/read-files.ts',
  'functions/http/list-predictions.ts',
];

describe('what a first request after idle loads', () => {
  it.each([...FIRST_REQUEST, FIRST_WEBHOOK, ...CLIENTS_FIRST])(
    "%s builds its schemas with zod's mini API, with its English messages: not the classic API the OpenAPI document is written in, nor zod's other locales",
    async (entry) => {
      const zod = (await bundledFiles(entry)).filter((file) => file.startsWith('node_modules/zod/'));
      expect(zod.some((file) => file.startsWith('node_modules/zod/v4/mini/'))).toBe(true);
      expect(zod).toContain('node_modules/zod/v4/locales/en.js');
      expect(zod.filter((file) => /^node_modules\/zod\/v4\/(classic\/|locales\/(?!en\.js))/.test(file))).toEqual([]);
    },
  );

  it("tells what is wrong in English where only zod's mini API is loaded, as where the classic one is", () => {
    // This file loads no module of the classic API, which would set the messages itself.
    const parsed = z.object({ seed: z.int() }).safeParse({ seed: 'one' });
    if (parsed.success) throw new Error('a word taken for a whole number');
    expect(z.prettifyError(parsed.error)).toContain('Invalid input: expected number, received string');
  });

  it.each(['functions/http/create-prediction.ts', 'functions/http/stream-prediction.ts'])(
    "%s leaves Node's web streams, which middy's streaming mode imports, to their first use",
    async (entry) => {
      const files = await bundledFiles(entry);
      expect(files).toContain('node_modules/@middy/core/executionModeStreamifyResponse.js');
      expect(files).toContain('functions/http/lazy-web-streams.ts');
    },
  );

  it('tells a web stream from a Node stream and from text, as the web streams module would', () => {
    expect(new globalThis.ReadableStream() instanceof LazyReadableStream).toBe(true);
    expect(Readable.from(['a']) instanceof LazyReadableStream).toBe(false);
    expect(Object('text') instanceof LazyReadableStream).toBe(false);
  });
});
