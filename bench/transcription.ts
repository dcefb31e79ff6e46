import { execFile } from 'node:child_process';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import type { PredictionView } from '../shared/api/prediction-view.ts';
import { parseTimestamp } from '../shared/domain/clock.ts';
import { apiCall, type ApiTarget } from '../test/support/http-client.ts';
import { serveFiles } from './file-server.ts';
import { median } from './stats.ts';

const run = promisify(execFile);
const POLL_MS = 50;
const DIRECT_SCRIPT = path.join(import.meta.dirname, 'whisper_direct.py');

export interface ClipResult {
  readonly name: string;
  readonly audioSeconds: number;
  /** Median over the repeats: create sent to `succeeded` seen by the client. */
  readonly serviceSeconds: number;
  /** completed_at − created_at as the service recorded them. */
  readonly serviceRecordedSeconds: number;
  /** The prediction's own `runtime`: the model server's time. */
  readonly modelRuntimeSeconds: number;
  /** Decode and transcribe by faster-whisper called directly, same settings, warm. */
  readonly directSeconds: number;
  readonly serviceOverDirect: number;
  /** Seconds of processing per second of audio (lower is faster). */
  readonly serviceRtf: number;
  readonly directRtf: number;
  readonly language: string;
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

interface DirectRun {
  readonly seconds: number;
  readonly audio_seconds: number;
  readonly language: string;
}

export const makeLongClip = async (python: string, folder: string): Promise<{ long: string; seconds: number }> => {
  const { stdout } = await run(python, [DIRECT_SCRIPT, 'clip', folder]);
  return JSON.parse(stdout) as { long: string; seconds: number };
};

const transcribeThroughService = async (target: ApiTarget, audioUrl: string) => {
  const started = performance.now();
  const created = await apiCall<PredictionView>(target, 'openai/whisper-base', { body: { audio: audioUrl } });
  if (created.status !== 201) throw new Error(`create answered ${created.status}: ${JSON.stringify(created.json)}`);
  let view = created.json;
  while (!['succeeded', 'failed', 'canceled'].includes(view.status)) {
    await sleep(POLL_MS);
    view = (await apiCall<PredictionView>(target, `predictions/${view.id}`)).json;
  }
  const seconds = (performance.now() - started) / 1000;
  if (view.status !== 'succeeded' || !view.completed_at) throw new Error(`transcription ${view.id} ended ${view.status}: ${String(view.error)}`);
  return {
    seconds,
    recordedSeconds: (parseTimestamp(view.completed_at) - parseTimestamp(view.created_at)) / 1000,
    runtimeSeconds: view.runtime ?? Number.NaN,
  };
};

/**
 * Section 3: each clip through the service (warm model server), then through faster-whisper
 * called directly in a fresh process (warmed on the first clip), one after the other so that
 * neither competes with the other for the cores.
 */
export const measureTranscription = async (
  target: ApiTarget,
  python: string,
  clips: readonly { name: string; file: string }[],
  repeats: number,
  log: (line: string) => void,
): Promise<TranscriptionResult> => {
  const files = await serveFiles(clips.map((clip) => clip.file));
  try {
    const [first] = clips;
    if (!first) throw new Error('no clips to transcribe');
    await transcribeThroughService(target, files.urlOf(first.file)); // warm-up, not counted
    const service = new Map<string, Awaited<ReturnType<typeof transcribeThroughService>>[]>();
    for (const clip of clips) {
      const runs = [];
      for (let i = 0; i < repeats; i++) runs.push(await transcribeThroughService(target, files.urlOf(clip.file)));
      service.set(clip.name, runs);
      log(`  service: ${clip.name} in ${median(runs.map((r) => r.seconds)).toFixed(2)} s`);
    }
    const { stdout } = await run(python, [DIRECT_SCRIPT, 'time', String(repeats), ...clips.map((clip) => clip.file)], { maxBuffer: 1 << 20 });
    const direct = JSON.parse(stdout) as { load_seconds: number; settings: Record<string, unknown>; files: Record<string, DirectRun[]>; peak_rss_mib: number };
    const results = clips.map((clip): ClipResult => {
      const serviceRuns = service.get(clip.name) ?? [];
      const directRuns = direct.files[clip.file] ?? [];
      const serviceSeconds = median(serviceRuns.map((r) => r.seconds));
      const directSeconds = median(directRuns.map((r) => r.seconds));
      const audioSeconds = directRuns[0]?.audio_seconds ?? Number.NaN;
      log(`  direct:  ${clip.name} in ${directSeconds.toFixed(2)} s`);
      return {
        name: clip.name,
        audioSeconds,
        serviceSeconds,
        serviceRecordedSeconds: median(serviceRuns.map((r) => r.recordedSeconds)),
        modelRuntimeSeconds: median(serviceRuns.map((r) => r.runtimeSeconds)),
        directSeconds,
        serviceOverDirect: serviceSeconds / directSeconds,
        serviceRtf: serviceSeconds / audioSeconds,
        directRtf: directSeconds / audioSeconds,
        language: directRuns[0]?.language ?? '',
      };
    });
    return { model: 'openai/whisper-base', settings: direct.settings, repeats, directLoadSeconds: direct.load_seconds, directPeakRssMiB: direct.peak_rss_mib, clips: results };
  } finally {
    await files.close();
  }
};
