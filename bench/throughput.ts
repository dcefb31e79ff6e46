import { wordErrorRate } from '../test/support/wer.ts';
import type { ApiTarget } from '../test/support/http-client.ts';
import { receiveCompletions, type Completions } from './completions.ts';
import { serveFiles } from './file-server.ts';
import { n, table } from './markdown.ts';
import { median } from './stats.ts';
import { DIRECT_SCRIPT, run, startDirect, transcribeThroughService, type ServiceRun } from './transcription.ts';

/** Stretches faster-whisper's batched pipeline decodes a pass (what prognoz's decoder batches on a GPU). */
const PIPELINE_BATCH = 16;

export interface ThroughputClip {
  readonly file: string;
  readonly seconds: number;
}

export interface ThroughputResult {
  readonly clips: number;
  readonly clipSeconds: number;
  readonly repeats: number;
  /** Audio seconds transcribed per wall second, medians over the repeats. */
  readonly atOnce: number;
  /** All at once with `translate: false`: no English of the German stretches, as the pipeline makes none. */
  readonly atOnceUntranslated: number;
  readonly oneAtATime: number;
  readonly pipeline: number;
  readonly atOnceOverPipeline: number;
  readonly atOnceUntranslatedOverPipeline: number;
  readonly atOnceOverOneAtATime: number;
  readonly pipelineOverOneAtATime: number;
  /** The largest word error rate of a clip's transcript at once against the same clip's one at a time. */
  readonly maxWerAtOnceVsAlone: number;
  /** Model seconds (`runtime`) a prediction was billed at once, median, against one at a time. */
  readonly runtimeAtOnce: number;
  readonly runtimeAlone: number;
}

export const makeThroughputClips = async (
  python: string,
  folder: string,
  count: number,
  seconds: number,
): Promise<ThroughputClip[]> => {
  const { stdout } = await run(python, [DIRECT_SCRIPT, 'throughput-clips', folder, String(count), String(seconds)]);
  return JSON.parse(stdout) as ThroughputClip[];
};

const textOf = (runs: readonly ServiceRun[]) => runs.map((r) => r.segments.map((s) => s.text).join(' '));

/**
 * The throughput section: `clips` arrive at once through the service (every create sent together,
 * each end learnt by its completion webhook); the same clips through the service one at a time; and
 * faster-whisper's batched pipeline over all of them in one call. Interleaved, the order turned
 * each repeat, so that slow spells of this shared machine fall on all three.
 */
export const measureThroughput = async (
  target: ApiTarget,
  python: string,
  clips: readonly ThroughputClip[],
  repeats: number,
  log: (line: string) => void,
): Promise<ThroughputResult> => {
  const files = await serveFiles(clips.map((clip) => clip.file));
  const completions: Completions = await receiveCompletions();
  const direct = await startDirect(python);
  const audioSeconds = clips.reduce((sum, clip) => sum + clip.seconds, 0);
  try {
    const [first] = clips;
    if (!first) throw new Error('no clips');
    await transcribeThroughService(target, files.urlOf(first.file), completions); // warm-ups, not counted
    await direct.ask({ op: 'batched', files: [first.file], batch_size: PIPELINE_BATCH });
    const rates = {
      atOnce: [] as number[],
      atOnceUntranslated: [] as number[],
      oneAtATime: [] as number[],
      pipeline: [] as number[],
    };
    let atOnceRuns: ServiceRun[] = [];
    let aloneRuns: ServiceRun[] = [];
    const sides: (() => Promise<void>)[] = [
      async () => {
        const started = performance.now();
        atOnceRuns = await Promise.all(
          clips.map((clip) => transcribeThroughService(target, files.urlOf(clip.file), completions)),
        );
        rates.atOnce.push(audioSeconds / ((performance.now() - started) / 1000));
      },
      async () => {
        const started = performance.now();
        await Promise.all(
          clips.map((clip) =>
            transcribeThroughService(target, files.urlOf(clip.file), completions, { translate: false }),
          ),
        );
        rates.atOnceUntranslated.push(audioSeconds / ((performance.now() - started) / 1000));
      },
      async () => {
        const started = performance.now();
        aloneRuns = [];
        for (const clip of clips)
          aloneRuns.push(await transcribeThroughService(target, files.urlOf(clip.file), completions));
        rates.oneAtATime.push(audioSeconds / ((performance.now() - started) / 1000));
      },
      async () => {
        const answer = await direct.ask<{ audio_seconds: number }>({
          op: 'batched',
          files: clips.map((clip) => clip.file),
          batch_size: PIPELINE_BATCH,
        });
        // Its rate counts the clips' audio, not the silences put between them.
        rates.pipeline.push(audioSeconds / answer.seconds);
      },
    ];
    for (let repeat = 0; repeat < repeats; repeat++) {
      for (let i = 0; i < sides.length; i++) await sides[(i + repeat) % sides.length]?.();
      log(
        `  repeat ${repeat + 1}/${repeats}: at once ${rates.atOnce.at(-1)?.toFixed(1)} (untranslated ${rates.atOnceUntranslated.at(-1)?.toFixed(1)}), one at a time ${rates.oneAtATime.at(-1)?.toFixed(1)}, batched pipeline ${rates.pipeline.at(-1)?.toFixed(1)} audio s / s`,
      );
    }
    const [together, alone] = [textOf(atOnceRuns), textOf(aloneRuns)];
    const maxWer = Math.max(...alone.map((reference, i) => wordErrorRate(reference, together[i] ?? '')));
    const [atOnce, atOnceUntranslated, oneAtATime, pipeline] = [
      median(rates.atOnce),
      median(rates.atOnceUntranslated),
      median(rates.oneAtATime),
      median(rates.pipeline),
    ];
    return {
      clips: clips.length,
      clipSeconds: first.seconds,
      repeats,
      atOnce,
      atOnceUntranslated,
      oneAtATime,
      pipeline,
      atOnceOverPipeline: atOnce / pipeline,
      atOnceUntranslatedOverPipeline: atOnceUntranslated / pipeline,
      atOnceOverOneAtATime: atOnce / oneAtATime,
      pipelineOverOneAtATime: pipeline / oneAtATime,
      maxWerAtOnceVsAlone: maxWer,
      runtimeAtOnce: median(atOnceRuns.map((r) => r.runtimeSeconds)),
      runtimeAlone: median(aloneRuns.map((r) => r.runtimeSeconds)),
    };
  } finally {
    direct.close();
    await completions.close();
    await files.close();
  }
};

/** Section 9 of the report. */
export const renderThroughput = (t: ThroughputResult): string[] => [
  `## 9. Throughput — ${t.clips} transcriptions of ${t.clipSeconds} s arriving at once, \`openai/whisper-base\``,
  '',
  `Audio seconds transcribed per wall second (median of ${t.repeats}), interleaved: the ${t.clips} predictions created together through the service (each end learnt by its completion webhook), the same created together with \`translate: false\`, the same clips through the service one at a time, and faster-whisper's batched pipeline (BatchedInferencePipeline, 16 stretches a pass) over all of them in one call. The service does more than that pipeline: each stretch's own language and its word times, and (unless \`translate: false\`) the English of the whole clip.`,
  '',
  table(
    ['', 'audio s / s', '÷ one at a time'],
    [
      ['the service, all at once', n(t.atOnce), `${n(t.atOnceOverOneAtATime)}×`],
      [
        'the service, all at once, `translate: false`',
        n(t.atOnceUntranslated),
        `${n(t.atOnceUntranslated / t.oneAtATime)}×`,
      ],
      ['the service, one at a time', n(t.oneAtATime), '1×'],
      ["faster-whisper's batched pipeline, one call", n(t.pipeline), `${n(t.pipelineOverOneAtATime)}×`],
    ],
  ),
  '',
  `At once ÷ the batched pipeline: **${n(t.atOnceOverPipeline)}×**, and ${n(t.atOnceUntranslatedOverPipeline)}× with \`translate: false\`. Largest word error rate of a clip at once against the same clip one at a time: ${n(t.maxWerAtOnceVsAlone)}. Model seconds a prediction was billed (median): ${n(t.runtimeAtOnce)} s at once, ${n(t.runtimeAlone)} s alone.`,
];
