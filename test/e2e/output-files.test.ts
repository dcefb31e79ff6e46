import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { PredictionView } from '../../shared/api/prediction-view.ts';
import { call, getPrediction, pollUntil, untilTerminal } from '../support/api.ts';
import { readStream } from '../support/event-stream.ts';
import { jpegSize, png, pngHeader } from '../support/images.ts';
import { receiverForFile } from '../support/receiver.ts';
import { fileHostForFile } from '../support/file-host.ts';

/**
 * Files a Cog predictor returns (`cog.Path`), as Cog's examples return them: `acme/images` (an
 * object holding a grayscale PNG and a JPEG thumbnail, made with Pillow from an image it is given)
 * and `acme/file-stream` (an iterator of files), run by the real coglet through the service. A
 * caller gets https URLs that serve the bytes with their content type — never a data URL.
 */
const create = (model: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call<PredictionView>(`models/${model}/predictions`, { method: 'POST', body, headers });

interface Download {
  readonly status: number;
  readonly contentType: string | null;
  readonly bytes: Buffer;
}

const download = async (url: string): Promise<Download> => {
  const response = await fetch(url);
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    bytes: Buffer.from(await response.arrayBuffer()),
  };
};

const WIDTH = 96;
const HEIGHT = 48;
const PICTURE = png(WIDTH, HEIGHT, (x, y) => [x * 2, y * 4, 200]);

const receiver = receiverForFile();
const imagesOrigin = fileHostForFile({ '/picture.png': { contentType: 'image/png', body: PICTURE } });

interface ImagesOutput {
  grayscale: string;
  thumbnail: string;
  width: number;
  height: number;
}

describe('a predictor that returns files', () => {
  it('gives https URLs that serve each file with its content type: a PNG and a JPEG made with Pillow', async () => {
    const created = await create(
      'acme/images',
      { input: { image: `${imagesOrigin()}/picture.png`, size: 32 } },
      { prefer: 'wait=60' },
    );
    expect(created.status).toBe(201);
    const done = created.json.status === 'succeeded' ? created.json : await untilTerminal(created.json.id, 60_000);
    expect(done.status, done.error ?? '').toBe('succeeded');
    const output = done.output as ImagesOutput;
    expect(output).toMatchObject({ width: WIDTH, height: HEIGHT });
    expect(output.grayscale).toMatch(/^https:\/\/[^/]+\/.+\.png\?/);
    expect(output.thumbnail).toMatch(/^https:\/\/[^/]+\/.+\.jpg\?/);
    expect(JSON.stringify(done)).not.toMatch(/data:|prognoz-file:|\/tmp\//);

    const grayscale = await download(output.grayscale);
    expect(grayscale.status).toBe(200);
    expect(grayscale.contentType).toBe('image/png');
    expect(pngHeader(grayscale.bytes)).toEqual({ width: WIDTH, height: HEIGHT, colorType: 0 });

    const thumbnail = await download(output.thumbnail);
    expect(thumbnail.contentType).toBe('image/jpeg');
    const size = jpegSize(thumbnail.bytes);
    expect(Math.max(size?.width ?? 0, size?.height ?? 0)).toBe(32);
    expect(size?.width).toBeGreaterThan(size?.height ?? Infinity);
  });

  it('links each file at one URL for as long as the data is kept, in GET and in the list; a wrong key finds nothing', async () => {
    const created = await create(
      'acme/images',
      { input: { image: `${imagesOrigin()}/picture.png` } },
      { prefer: 'wait=60' },
    );
    const done = created.json.status === 'succeeded' ? created.json : await untilTerminal(created.json.id, 60_000);
    const first = done.output as ImagesOutput;
    const again = (await getPrediction(done.id)).json.output as ImagesOutput;
    expect(again.grayscale).toBe(first.grayscale);
    const listed = await call<{ results: PredictionView[] }>('predictions');
    const inList = listed.json.results.find((prediction) => prediction.id === done.id);
    expect((inList?.output as ImagesOutput).grayscale).toBe(first.grayscale);

    const whole = await download(first.grayscale);
    const part = await fetch(first.grayscale, { headers: { range: 'bytes=0-7' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 0-7/${whole.bytes.length}`);
    expect(Buffer.from(await part.arrayBuffer())).toEqual(whole.bytes.subarray(0, 8));

    const forged = new URL(first.grayscale);
    forged.searchParams.set('key', 'A'.repeat(32));
    const refused = await fetch(forged);
    expect(refused.status).toBe(404);
    expect(await refused.json()).toMatchObject({ error: { code: 'file_not_found' } });
    // Another prediction's key does not open this one's files.
    const other = await create('acme/file-stream', { input: { count: 1 } }, { prefer: 'wait=60' });
    const otherKey = new URL((other.json.output as string[])[0] ?? '').searchParams.get('key') ?? '';
    forged.searchParams.set('key', otherKey);
    expect((await fetch(forged)).status).toBe(404);
  });

  it('streams an iterator of files as URLs, on the event stream and in webhooks, and ends with them all', async () => {
    const created = await create('acme/file-stream', {
      input: { count: 3, kind: 'text', pause: 0.5 },
      webhook: `${receiver().url}/files`,
      webhook_events_filter: ['output', 'completed'],
    });
    expect(created.status).toBe(201);
    const stream = await readStream(created.json.urls?.stream ?? '');
    const pieces = stream.events.filter((event) => event.event === 'output').map((event) => event.data);
    expect(pieces).toHaveLength(3);
    for (const [index, url] of pieces.entries()) {
      expect(url).toMatch(/^https:\/\/.+\.txt\?/);
      const file = await download(url);
      expect(file.contentType).toMatch(/^text\/plain/);
      expect(file.bytes.toString('utf8')).toBe(`part ${index} of 3\n`);
    }
    const done = await untilTerminal(created.json.id, 30_000);
    const output = done.output as string[];
    expect(output.map((url) => url.split('?')[0])).toEqual(pieces.map((url) => url.split('?')[0]));

    const webhooks = await pollUntilDelivered(done.id);
    const last = JSON.parse(webhooks.at(-1) ?? '{}') as PredictionView;
    expect(last.status).toBe('succeeded');
    expect((last.output as string[]).map((url) => url.split('?')[0])).toEqual(output.map((url) => url.split('?')[0]));
    for (const body of webhooks) expect(body).not.toMatch(/data:|prognoz-file:/);
    const fromWebhook = await download((last.output as string[])[2] ?? '');
    expect(fromWebhook.bytes.toString('utf8')).toBe('part 2 of 3\n');
  });

  it('keeps audio as audio: a WAV file is served as one', async () => {
    const created = await create('acme/file-stream', { input: { count: 1, kind: 'audio' } }, { prefer: 'wait=60' });
    const done = created.json.status === 'succeeded' ? created.json : await untilTerminal(created.json.id, 60_000);
    const [url] = done.output as string[];
    const audio = await download(url ?? '');
    expect(audio.contentType).toMatch(/^audio\/(x-)?wav$/);
    expect(audio.bytes.subarray(0, 4).toString('ascii')).toBe('RIFF');
    expect(audio.bytes.subarray(8, 12).toString('ascii')).toBe('WAVE');
  });

  it('serves a large file whole: 12 MB out of the model, byte for byte', async () => {
    const created = await create(
      'acme/file-stream',
      { input: { count: 1, kind: 'binary', kilobytes: 12 * 1024 } },
      { prefer: 'wait=60' },
    );
    const done = created.json.status === 'succeeded' ? created.json : await untilTerminal(created.json.id, 60_000);
    expect(done.status, done.error ?? '').toBe('succeeded');
    const [url] = done.output as string[];
    const file = await download(url ?? '');
    expect(file.bytes.length).toBe(12 * 1024 * 1024);
    const seed = createHash('sha256').update('0').digest();
    expect(file.bytes.subarray(0, 64)).toEqual(Buffer.concat([seed, seed]));
    expect(file.contentType).toBe('application/octet-stream');
  });
});

/** The bodies of the webhooks delivered for a prediction, once its end has been delivered. */
const pollUntilDelivered = async (id: string): Promise<string[]> => {
  await pollUntil(
    id,
    () =>
      receiver()
        .accepted(id)
        .some((d) => d.body.includes('"succeeded"')),
    30_000,
  );
  return receiver()
    .accepted(id)
    .map((d) => d.body);
};
