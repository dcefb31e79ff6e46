import { execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import type { PredictionView } from '../shared/api/prediction-view.ts';
import { parseTimestamp } from '../shared/domain/clock.ts';
import { isTerminalStatus } from '../shared/domain/prediction.ts';
import { apiCall, type ApiTarget } from '../test/support/http-client.ts';
import { receiveCompletions, type Completions } from './completions.ts';
import { serveFiles } from './file-server.ts';
import { startModelServerAlone } from './model-server-alone.ts';
import { median } from './stats.ts';

export const run = promisify(execFile);
export const DIRECT_SCRIPT = path.join(import.meta.dirname, 'whisper_direct.py');
const MODEL = 'openai/whisper-base';

export interface Segment {
  readonly start: number;
  readonly end: number;
  readonly text: string;
  readonly language: string;
}
interface Clip {
  readonly name: string;
  readonly file: string;
  readonly seconds: number;
  readonly parts: readonly { label: string; start: number; end: number; reference: string }[];
}

export interface ClipResult {
  readonly name: string;
  readonly audioSeconds: number;
  /** Medians over the repeats. The prediction's own `runtime`: the worker's time on the run (its input fetched, the model server's run). */
  readonly modelRuntimeSeconds: number;
  /** `metrics.predict_time`: the model server's own measure of the predictor's run. */
  readonly predictSeconds: number;
  readonly predictOverDirect: number;
  /** `metrics.predict_time` of the same model server run on its own, no service around it. */
  readonly aloneSeconds: number;
  readonly aloneOverDirect: number;
  /** Create sent to the completion webhook received. */
  readonly serviceSeconds: number;
  /** completed_at − created_at as the service recorded them. */
  readonly serviceRecordedSeconds: number;
  /** The same transcription (Transcriber.transcribe) called in a plain Python process. */
  readonly directSeconds: number;
  /** faster-whisper as it comes: WhisperModel.transcribe with its defaults. */
  readonly rawSeconds: number;
  readonly runtimeOverDirect: number;
  readonly runtimeOverRaw: number;
  readonly serviceRtf: number;
  readonly rawRtf: number;
  /** The languages of prognoz's segments in order (runs of one language once). */
  readonly languages: string;
  readonly rawLanguage: string;
  /** Word error rates, prognoz and raw: of the whole clip, and part by part. */
  readonly wer: WerPair;
  readonly parts: readonly (WerPair & { label: string })[];
}

export interface WerPair {
  readonly prognoz: number;
  readonly raw: number;
}

interface Score {
  readonly wer: number;
  readonly parts: readonly { label: string; wer: number }[];
}

export interface LongResult {
  readonly audioSeconds: number;
  readonly serviceSeconds: number;
  readonly modelRuntimeSeconds: number;
  readonly rtf: number;
  /** Distinct progress values seen while polling once a second. */
  readonly progressSteps: number;
  readonly segments: number;
}

export interface TranscriptionResult {
  readonly model: string;
  readonly settings: Record<string, unknown>;
  readonly repeats: number;
  readonly directLoadSeconds: number;
  /** Peak RSS of the process that called faster-whisper directly. */
  readonly directPeakRssMiB: number;
  readonly clips: readonly ClipResult[];
}

export const makeClips = async (
  python: string,
  folder: string,
  longMinutes: number,
): Promise<{ clips: Clip[]; long: { file: string; seconds: number } }> => {
  const { stdout } = await run(python, [DIRECT_SCRIPT, 'clips', folder, String(longMinutes)], { maxBuffer: 1 << 22 });
  return JSON.parse(stdout) as { clips: Clip[]; long: { file: string; seconds: number } };
};

/** The Python side, warm: one JSON line in, one out. */
export const startDirect = async (python: string) => {
  const child = spawn(python, [DIRECT_SCRIPT, 'serve'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async <T>(): Promise<T> => {
    const line = await lines.next();
    if (line.done) throw new Error('the direct faster-whisper process ended');
    return JSON.parse(line.value) as T;
  };
  const ready = await next<{ load_seconds: number; settings: Record<string, unknown> }>();
  let peakRssMiB = 0;
  return {
    ready,
    ask: async <T>(request: Record<string, unknown>): Promise<T & { seconds: number; peak_rss_mib: number }> => {
      child.stdin.write(`${JSON.stringify(request)}\n`);
      const answer = await next<T & { seconds: number; peak_rss_mib: number }>();
      peakRssMiB = Math.max(peakRssMiB, answer.peak_rss_mib);
      return answer;
    },
    peakRssMiB: () => peakRssMiB,
    close: () => child.kill(),
  };
};

export interface ServiceRun {
  /** Create sent to the end seen by the benchmark. */
  readonly seconds: number;
  readonly recordedSeconds: number;
  readonly runtimeSeconds: number;
  /** coglet's own measure of the predictor's run (`metrics.predict_time`). */
  readonly predictSeconds: number;
  readonly segments: Segment[];
}

const createTranscription = async (
  target: ApiTarget,
  audioUrl: string,
  headers: Record<string, string> = {},
  input: Record<string, unknown> = {},
) => {
  const created = await apiCall<PredictionView>(target, MODEL, { body: { audio: audioUrl, ...input }, headers });
  if (created.status !== 201) throw new Error(`create answered ${created.status}: ${JSON.stringify(created.json)}`);
  return created.json;
};

const ended = (view: PredictionView, startedMs: number): ServiceRun => {
  if (view.status !== 'succeeded' || !view.completed_at)
    throw new Error(`transcription ${view.id} ended ${view.status}: ${String(view.error)}`);
  return {
    seconds: (performance.now() - startedMs) / 1000,
    recordedSeconds: (parseTimestamp(view.completed_at) - parseTimestamp(view.created_at)) / 1000,
    runtimeSeconds: view.runtime ?? Number.NaN,
    predictSeconds: view.metrics?.predict_time ?? Number.NaN,
    segments: (view.output as { segments: Segment[] }).segments,
  };
};

/**
 * Through the service, learning of the end by the completion webhook: polling the API costs the
 * runtime's processes (API front, DynamoDB Local) CPU that a 2-core machine takes from the model —
 * every 50 ms it slowed the model server's own runtime by 10–20 %, every 3 s by 3–7 %.
 */
export const transcribeThroughService = async (
  target: ApiTarget,
  audioUrl: string,
  completions: Completions,
  input: Record<string, unknown> = {},
): Promise<ServiceRun> => {
  const started = performance.now();
  const created = await createTranscription(target, audioUrl, { 'webhook-url': completions.url }, input);
  return ended(await completions.ended(created.id, 30 * 60_000), started);
};

/** Through the service, polling once a second to watch its progress move. */
const transcribeWatchingProgress = async (
  target: ApiTarget,
  audioUrl: string,
  onProgress: (progress: number) => void,
): Promise<ServiceRun> => {
  const started = performance.now();
  let view = await createTranscription(target, audioUrl);
  while (!isTerminalStatus(view.status)) {
    await sleep(1000);
    view = (await apiCall<PredictionView>(target, `predictions/${view.id}`)).json;
    if (view.progress !== null && view.progress !== undefined) onProgress(view.progress);
  }
  return ended(view, started);
};

const languageRuns = (segments: readonly Segment[]) =>
  segments
    .map((s) => s.language)
    .filter((language, i, all) => language !== all[i - 1])
    .join('→') || '—';

/**
 * Section 3: each clip through the service (warm model server), through the same model server on its
 * own, through the same transcription in a plain Python process, and through faster-whisper with its
 * defaults — interleaved, repeat by repeat (the order turned each time), so that slow spells of this
 * shared machine fall on all sides.
 */
export const measureTranscription = async (
  target: ApiTarget,
  python: string,
  clips: readonly Clip[],
  repeats: number,
  log: (line: string) => void,
): Promise<TranscriptionResult> => {
  const files = await serveFiles(clips.map((clip) => clip.file));
  const completions = await receiveCompletions();
  const direct = await startDirect(python);
  const alone = await startModelServerAlone(python);
  try {
    const [first] = clips;
    if (!first) throw new Error('no clips to transcribe');
    await transcribeThroughService(target, files.urlOf(first.file), completions); // warm-ups, not counted
    await direct.ask({ op: 'pipeline', file: first.file });
    await direct.ask({ op: 'raw', file: first.file });
    await alone.predictSeconds(first.file);
    const runs = new Map(
      clips.map((clip) => [
        clip.name,
        {
          service: [] as ServiceRun[],
          direct: [] as number[],
          alone: [] as number[],
          raw: [] as { seconds: number; segments: Segment[] }[],
        },
      ]),
    );
    for (let repeat = 0; repeat < repeats; repeat++) {
      for (const clip of clips) {
        const sides = [
          async () =>
            runs
              .get(clip.name)
              ?.service.push(await transcribeThroughService(target, files.urlOf(clip.file), completions)),
          async () =>
            runs
              .get(clip.name)
              ?.direct.push((await direct.ask<{ segments: Segment[] }>({ op: 'pipeline', file: clip.file })).seconds),
          async () =>
            runs.get(clip.name)?.raw.push(await direct.ask<{ segments: Segment[] }>({ op: 'raw', file: clip.file })),
          async () => runs.get(clip.name)?.alone.push(await alone.predictSeconds(clip.file)),
        ];
        for (let i = 0; i < sides.length; i++) await sides[(i + repeat) % sides.length]?.();
      }
      log(`  repeat ${repeat + 1}/${repeats} done`);
    }
    const results: ClipResult[] = [];
    for (const clip of clips) {
      const {
        service,
        direct: directRuns,
        alone: aloneRuns,
        raw,
      } = runs.get(clip.name) ?? { service: [], direct: [], alone: [], raw: [] };
      const served = service.at(-1)?.segments ?? [];
      const rawSegments = raw.at(-1)?.segments ?? [];
      const prognozScore = await direct.ask<Score>({ op: 'score', clip, segments: served });
      const rawScore = await direct.ask<Score>({ op: 'score', clip, segments: rawSegments });
      const runtime = median(service.map((r) => r.runtimeSeconds));
      const predict = median(service.map((r) => r.predictSeconds));
      const directSeconds = median(directRuns);
      const rawSeconds = median(raw.map((r) => r.seconds));
      const aloneSeconds = median(aloneRuns);
      results.push({
        name: clip.name,
        audioSeconds: clip.seconds,
        modelRuntimeSeconds: runtime,
        predictSeconds: predict,
        predictOverDirect: predict / directSeconds,
        aloneSeconds,
        aloneOverDirect: aloneSeconds / directSeconds,
        serviceSeconds: median(service.map((r) => r.seconds)),
        serviceRecordedSeconds: median(service.map((r) => r.recordedSeconds)),
        directSeconds,
        rawSeconds,
        runtimeOverDirect: runtime / directSeconds,
        runtimeOverRaw: runtime / rawSeconds,
        serviceRtf: runtime / clip.seconds,
        rawRtf: rawSeconds / clip.seconds,
        languages: languageRuns(served),
        rawLanguage: rawSegments[0]?.language ?? '—',
        wer: { prognoz: prognozScore.wer, raw: rawScore.wer },
        parts: prognozScore.parts.map((part, i) => ({
          label: part.label,
          prognoz: part.wer,
          raw: rawScore.parts[i]?.wer ?? Number.NaN,
        })),
      });
      log(
        `  ${clip.name}: model runtime ${runtime.toFixed(2)} s, predict_time ${predict.toFixed(2)} s, alone ${aloneSeconds.toFixed(2)} s, direct ${directSeconds.toFixed(2)} s, raw ${rawSeconds.toFixed(2)} s`,
      );
    }
    return {
      model: MODEL,
      settings: direct.ready.settings,
      repeats,
      directLoadSeconds: direct.ready.load_seconds,
      directPeakRssMiB: direct.peakRssMiB(),
      clips: results,
    };
  } finally {
    direct.close();
    alone.close();
    await completions.close();
    await files.close();
  }
};

/** A long recording through the service once: its RTF, and progress moving all along. */
export const measureLongTranscription = async (
  target: ApiTarget,
  long: { file: string; seconds: number },
  log: (line: string) => void,
): Promise<LongResult> => {
  const files = await serveFiles([long.file]);
  try {
    const seen = new Set<number>();
    const run = await transcribeWatchingProgress(target, files.urlOf(long.file), (progress) => seen.add(progress));
    log(
      `  ${(long.seconds / 60).toFixed(0)} min of audio: ${run.runtimeSeconds.toFixed(0)} s of model runtime, ${seen.size} progress steps`,
    );
    return {
      audioSeconds: long.seconds,
      serviceSeconds: run.seconds,
      modelRuntimeSeconds: run.runtimeSeconds,
      rtf: run.runtimeSeconds / long.seconds,
      progressSteps: seen.size,
      segments: run.segments.length,
    };
  } finally {
    await files.close();
  }
};
