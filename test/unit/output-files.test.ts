import { describe, expect, it } from 'vitest';
import { outputFileUrl, withFileUrls, withStreamedFileUrls } from '../../shared/api/output-urls.ts';
import { fileReference, outputFilesKey, parseDataUrl, referencedKey } from '../../shared/domain/output-files.ts';
import type { PredictionId } from '../../shared/domain/ids.ts';
import type { Prediction } from '../../shared/domain/prediction.ts';
import type { OutputFile } from '../../shared/ports/output-store.ts';
import { OutputFilesTooLarge, RunFiles } from '../../shared/use-cases/run/output-files.ts';

const ID = '11111111-1111-4111-8111-111111111111' as PredictionId;
const prediction = { id: ID, apiBase: 'http://127.0.0.1:8080/api/v1', streamKey: 'stream-key' };

const dataUrl = (type: string, text: string) => `data:${type};base64,${Buffer.from(text).toString('base64')}`;

/** An in-memory outputs bucket: what was put, under the key the real adapter's naming would give. */
const memoryFiles = () => {
  const put: { key: string; file: OutputFile }[] = [];
  return {
    put,
    putFile: (predictionId: string, claim: string, index: number, file: OutputFile) => {
      const key = `outputs/${predictionId}/${claim}/output-${index}`;
      put.push({ key, file });
      return Promise.resolve(key);
    },
  };
};

describe('data URLs from coglet', () => {
  it('are parsed for their type and bytes, base64 or not; anything else is not one', () => {
    expect(parseDataUrl(dataUrl('image/png', 'png bytes'))).toEqual({
      contentType: 'image/png',
      bytes: Buffer.from('png bytes'),
    });
    expect(parseDataUrl('data:,hello%20there')).toEqual({
      contentType: 'text/plain;charset=US-ASCII',
      bytes: Buffer.from('hello there'),
    });
    expect(parseDataUrl('https://example.com/a.png')).toBeNull();
    expect(parseDataUrl('data without a comma')).toBeNull();
  });
});

describe('a run keeping its files', () => {
  it('stores each data URL once, in order, and puts a reference in its place, wherever it sits', async () => {
    const store = memoryFiles();
    const files = new RunFiles(store, ID, 'claim-1');
    const first = dataUrl('image/png', 'one');
    const output = { image: first, frames: [dataUrl('audio/wav', 'two'), first], caption: 'data: not a file' };
    expect(await files.keep(output)).toEqual({
      image: fileReference(`outputs/${ID}/claim-1/output-0`),
      frames: [fileReference(`outputs/${ID}/claim-1/output-1`), fileReference(`outputs/${ID}/claim-1/output-0`)],
      caption: 'data: not a file',
    });
    expect(store.put.map((p) => p.file.contentType)).toEqual(['image/png', 'audio/wav']);
    // A streamed piece seen again (every update carries them all) is not stored again.
    expect(await files.keepPiece(first)).toBe(fileReference(`outputs/${ID}/claim-1/output-0`));
    expect(await files.keepPiece(JSON.stringify({ frame: first }))).toBe(
      JSON.stringify({ frame: fileReference(`outputs/${ID}/claim-1/output-0`) }),
    );
    expect(store.put).toHaveLength(2);
  });

  it('refuses files past the limit, counting each file once', async () => {
    const files = new RunFiles(memoryFiles(), ID, 'claim-1', 10);
    const six = dataUrl('text/plain', 'sixsix');
    await files.keep([six, six]);
    await expect(files.keep([six, dataUrl('text/plain', 'more!!')])).rejects.toBeInstanceOf(OutputFilesTooLarge);
  });
});

describe('file references shown to callers', () => {
  it('become https URLs on the API, with the files key, never the stream key', () => {
    const key = `outputs/${ID}/claim-1/output-0.png`;
    const url = new URL(outputFileUrl(prediction, key));
    expect(url.origin).toBe('https://127.0.0.1:8080');
    expect(url.pathname).toBe(`/api/v1/predictions/${ID}/output/claim-1/output-0.png`);
    expect(url.searchParams.get('key')).toBe(outputFilesKey('stream-key'));
    expect(url.searchParams.get('key')).not.toContain('stream-key');
    expect(withFileUrls({ image: fileReference(key), n: 1 }, prediction)).toEqual({ image: url.toString(), n: 1 });
  });

  it("never name another prediction's objects, nor climb out of this one's", () => {
    const elsewhere = fileReference('outputs/22222222-2222-4222-8222-222222222222/c/output-0.png');
    const climbing = fileReference(`outputs/${ID}/../22222222-2222-4222-8222-222222222222/c/output-0.png`);
    expect(withFileUrls([elsewhere, climbing], prediction)).toEqual([elsewhere, climbing]);
    expect(referencedKey(climbing, `outputs/${ID}/`)).toBeNull();
  });

  it('in streamed pieces, whether a piece is a file or holds files', () => {
    const key = `outputs/${ID}/claim-1/output-0.txt`;
    const streaming = {
      ...prediction,
      status: 'processing',
      streamed: [fileReference(key), JSON.stringify({ file: fileReference(key) }), 'plain'],
    } as unknown as Prediction;
    const shown = withStreamedFileUrls(streaming) as Extract<Prediction, { status: 'processing' }>;
    expect(shown.streamed).toEqual([
      outputFileUrl(prediction, key),
      JSON.stringify({ file: outputFileUrl(prediction, key) }),
      'plain',
    ]);
  });
});
