import path from 'node:path';
import { REPO_ROOT } from '../local/paths.ts';
import { summarize, type Summary } from './stats.ts';

/** The Cog predictor the measure runs: an iterator of files of a given size (test/fixtures/cog/file-stream). */
export const FILE_MODEL = {
  id: 'bench/file-stream',
  folder: path.join(REPO_ROOT, 'test', 'fixtures', 'cog', 'file-stream'),
};

export interface OutputFileSize {
  readonly megabytes: number;
  /** From the predictor's `yield` of the file to the caller holding the prediction with its URL (ms). */
  readonly toUrl: Summary;
  /** …to the first byte served at that URL (ms). */
  readonly toFirstByte: Summary;
  /** …to the whole file downloaded (ms). */
  readonly toDownloaded: Summary;
}

export interface OutputFilesResult {
  readonly sizes: readonly OutputFileSize[];
}

interface Target {
  readonly apiUrl: string;
  readonly apiToken: string;
}

const RETURNED = /returned part-0\.bin at (\d+\.\d+)/;

/** One prediction of one file: the times from its return, as the predictor logged it, to its URL and its bytes. */
const once = async (target: Target, kilobytes: number) => {
  const response = await fetch(`${target.apiUrl}models/${FILE_MODEL.id}/predictions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${target.apiToken}`, 'content-type': 'application/json', prefer: 'wait=60' },
    body: JSON.stringify({ input: { count: 1, kind: 'binary', kilobytes, pause: 0 } }),
  });
  const prediction = (await response.json()) as { status: string; output: string[]; logs: string; error: string };
  const seenAt = Date.now();
  if (prediction.status !== 'succeeded')
    throw new Error(`the file prediction ${prediction.status}: ${prediction.error}`);
  const returnedAt = Number(RETURNED.exec(prediction.logs)?.[1]) * 1000;
  const download = await fetch(prediction.output[0] ?? '');
  if (!download.body) throw new Error('the output URL served no body');
  let firstByteAt = 0;
  let bytes = 0;
  for await (const chunk of download.body) {
    if (firstByteAt === 0) firstByteAt = Date.now();
    bytes += (chunk as Uint8Array).byteLength;
  }
  const downloadedAt = Date.now();
  if (bytes !== kilobytes * 1024) throw new Error(`the output URL served ${bytes} bytes, not ${kilobytes * 1024}`);
  return { toUrl: seenAt - returnedAt, toFirstByte: firstByteAt - returnedAt, toDownloaded: downloadedAt - returnedAt };
};

/**
 * How long a file a model returns takes to be served at its output URL, locally: a 10 MB file,
 * beside a 1 KB one as the floor (what any prediction's end costs), the two interleaved.
 */
export const measureOutputFiles = async (target: Target, repeats: number): Promise<OutputFilesResult> => {
  const sizes = [1, 10 * 1024];
  const samples = new Map(sizes.map((kilobytes) => [kilobytes, [] as Awaited<ReturnType<typeof once>>[]]));
  await once(target, 1); // the model server's first run warms it up
  for (let run = 0; run < repeats; run++)
    for (const kilobytes of sizes) samples.get(kilobytes)?.push(await once(target, kilobytes));
  return {
    sizes: sizes.map((kilobytes) => {
      const runs = samples.get(kilobytes) ?? [];
      return {
        megabytes: kilobytes / 1024,
        toUrl: summarize(runs.map((r) => r.toUrl)),
        toFirstByte: summarize(runs.map((r) => r.toFirstByte)),
        toDownloaded: summarize(runs.map((r) => r.toDownloaded)),
      };
    }),
  };
};
