import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { outputFileName, outputObjectKey } from '../../../shared/adapters/output-store.ts';
import { inputObjectKey, type InputStore } from '../../../shared/ports/input-store.ts';
import { outputFileKey, type OutputStore } from '../../../shared/ports/output-store.ts';
import { answer } from './answer.ts';

interface Kept {
  readonly contentType: string;
  readonly bytes: Uint8Array;
}

/** `bytes=a-b`, `bytes=a-` or `bytes=-n` over `size` bytes, as S3 serves one range; null for any other. */
const rangeOf = (range: string, size: number): { start: number; end: number } | null => {
  const match = /^bytes=(\d*)-(\d*)$/.exec(range.trim());
  if (!match || (match[1] === '' && match[2] === '')) return null;
  const [, first = '', last = ''] = match;
  const [start, end] =
    first === ''
      ? [Math.max(0, size - Number(last)), size - 1]
      : [Number(first), last === '' ? size - 1 : Number(last)];
  return start > end || start >= size ? null : { start, end: Math.min(end, size - 1) };
};

/** The outputs bucket in memory, under the same keys as the S3 adapter's; its inputs too (`inputs`). */
export const inMemoryOutputStore = (): OutputStore & { readonly inputs: InputStore } => {
  const objects = new Map<string, Kept>();
  return {
    inputs: {
      put: (predictionId, json) =>
        answer(() => {
          const key = inputObjectKey(predictionId);
          objects.set(key, { contentType: 'application/json', bytes: Buffer.from(json, 'utf8') });
          return key;
        }),
      remove: (key) =>
        answer(() => {
          objects.delete(key);
        }),
    },
    put: (predictionId, claim, json) =>
      answer(() => {
        const key = outputObjectKey(predictionId, claim);
        objects.set(key, { contentType: 'application/json', bytes: Buffer.from(json, 'utf8') });
        return key;
      }),
    get: (key) =>
      answer(() => {
        const kept = objects.get(key);
        if (!kept) throw new Error(`no output under ${key}`);
        return Buffer.from(kept.bytes).toString('utf8');
      }),
    putFile: (predictionId, claim, index, file) =>
      answer(() => {
        const key = outputFileKey(predictionId, claim, outputFileName(index, file.contentType));
        objects.set(key, { contentType: file.contentType, bytes: Uint8Array.from(file.bytes) });
        return key;
      }),
    openFile: (key, range) =>
      answer(() => {
        const kept = objects.get(key);
        if (!kept) return null;
        const size = kept.bytes.byteLength;
        const served = range === undefined ? null : rangeOf(range, size);
        const bytes = served ? kept.bytes.subarray(served.start, served.end + 1) : kept.bytes;
        return {
          body: Readable.from([Buffer.from(bytes)]),
          contentType: kept.contentType,
          contentLength: bytes.byteLength,
          etag: `"${createHash('md5').update(kept.bytes).digest('hex')}"`,
          contentRange: served ? `bytes ${served.start}-${served.end}/${size}` : null,
        };
      }),
  };
};
