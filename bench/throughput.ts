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
  /** The pipeline with each stretch in the language heard in it (`multilingual`): the German written as German, as the service writes it. */
  readonly pipelineEachLanguage: number;
  readonly atOnceOverPipeline: number;
  readonly atOnceUntranslatedOverPipeline: number;
  readonly atOnceUntranslatedOverPipelineEachLanguage: number;
  readonly atOnceOverOneAtATime: number;
  readonly pipelineOverOneAtATime: number;
  /** The largest word error rate of a clip's transcript at once against the same clip's one at a time. */
  readonly maxWerAtOnceVsAlone: number;
  /** The same measures over clips of English alone: each stretch's language heard, and `language: en` given (stretches packed into windows). */
  readonly english: {
    readonly atOnce: number;
    readonly atOnceGiven: number;
    /** The batched pipeline over them in one call, told `en`. */
    readonly pipeline: number;
    readonly atOnceOverPipeline: number;
    readonly atOnceGivenOverPipeline: number;
    /** The largest word error rate of a clip given `en` against the same clip heard stretch by stretch (both at once). */
    readonly maxWerGivenVsHeard: number;
  };
  /** Model seconds (`runtime`) a prediction was billed at once, median, against one at a time. */
  readonly runtimeAtOnce: number;
  readonly runtimeAlone: number;
}

export interface ThroughputClips {
  /** English and German read one after another. */
  readonly mixed: readonly ThroughputClip[];
  readonly english: readonly ThroughputClip[];
}

export const makeThroughputClips = async (
  python: string,
  folder: string,
  count: number,
  seconds: number,
): Promise<ThroughputClips> => {
  const made = async (...language: string[]) => {
    const args = [DIRECT_SCRIPT, 'throughput-clips', folder, String(count), String(seconds), ...language];
    return JSON.parse((await run(python, args)).stdout) as ThroughputClip[];
  };
  return { mixed: await made(), english: await made('english') };
};

const textOf = (runs: readonly ServiceRun[]) => runs.map((r) => r.segments.map((s) => s.text).join(' '));

/**
 * The throughput section: `clips` arrive at once through the service (every create sent together,
 * each end learnt by its completion webhook); the same clips through the service one at a time; and
 * faster-whisper's batched pipeline over all of them in one call. Then the English clips at once,
 * with and without their language given, and the pipeline over them. Interleaved, the order turned
 * each repeat, so that slow spells of this shared machine fall on every side.
 */
export const measureThroughput = async (
  target: ApiTarget,
  python: string,
  { mixed: clips, english }: ThroughputClips,
  repeats: number,
  log: (line: string) => void,
): Promise<ThroughputResult> => {
  const files = await serveFiles([...clips, ...english].map((clip) => clip.file));
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
      pipelineEachLanguage: [] as number[],
      englishAtOnce: [] as number[],
      englishAtOnceGiven: [] as number[],
      englishPipeline: [] as number[],
    };
    let atOnceRuns: ServiceRun[] = [];
    let aloneRuns: ServiceRun[] = [];
    let heardRuns: ServiceRun[] = [];
    let givenRuns: ServiceRun[] = [];
    const allAtOnce = async (of: readonly ThroughputClip[], input: Record<string, unknown>, rate: number[]) => {
      const started = performance.now();
      const runs = await Promise.all(
        of.map((clip) => transcribeThroughService(target, files.urlOf(clip.file), completions, input)),
      );
      rate.push(of.reduce((sum, clip) => sum + clip.seconds, 0) / ((performance.now() - started) / 1000));
      return runs;
    };
    const pipelineOver = async (of: readonly ThroughputClip[], options: Record<string, unknown>, rate: number[]) => {
      const answer = await direct.ask<{ audio_seconds: number }>({
        op: 'batched',
        files: of.map((clip) => clip.file),
        batch_size: PIPELINE_BATCH,
        ...options,
      });
      // Its rate counts the clips' audio, not the silences put between them.
      rate.push(of.reduce((sum, clip) => sum + clip.seconds, 0) / answer.seconds);
    };
    const sides: (() => Promise<void>)[] = [
      async () => {
        atOnceRuns = await allAtOnce(clips, {}, rates.atOnce);
      },
      async () => {
        await allAtOnce(clips, { translate: false }, rates.atOnceUntranslated);
      },
      async () => {
        const started = performance.now();
        aloneRuns = [];
        for (const clip of clips)
          aloneRuns.push(await transcribeThroughService(target, files.urlOf(clip.file), completions));
        rates.oneAtATime.push(audioSeconds / ((performance.now() - started) / 1000));
      },
      () => pipelineOver(clips, {}, rates.pipeline),
      () => pipelineOver(clips, { multilingual: true }, rates.pipelineEachLanguage),
      async () => {
        heardRuns = await allAtOnce(english, {}, rates.englishAtOnce);
      },
      async () => {
        givenRuns = await allAtOnce(english, { language: 'en' }, rates.englishAtOnceGiven);
      },
      () => pipelineOver(english, { language: 'en' }, rates.englishPipeline),
    ];
    for (let repeat = 0; repeat < repeats; repeat++) {
      for (let i = 0; i < sides.length; i++) await sides[(i + repeat) % sides.length]?.();
      log(
        `  repeat ${repeat + 1}/${repeats}: at once ${rates.atOnce.at(-1)?.toFixed(1)} (untranslated ${rates.atOnceUntranslated.at(-1)?.toFixed(1)}), one at a time ${rates.oneAtATime.at(-1)?.toFixed(1)}, batched pipeline ${rates.pipeline.at(-1)?.toFixed(1)} (each stretch's language ${rates.pipelineEachLanguage.at(-1)?.toFixed(1)}); English at once ${rates.englishAtOnce.at(-1)?.toFixed(1)} (given en ${rates.englishAtOnceGiven.at(-1)?.toFixed(1)}), batched pipeline ${rates.englishPipeline.at(-1)?.toFixed(1)} audio s / s`,
      );
    }
    const [together, alone] = [textOf(atOnceRuns), textOf(aloneRuns)];
    const maxWer = Math.max(...alone.map((reference, i) => wordErrorRate(reference, together[i] ?? '')));
    const [heard, given] = [textOf(heardRuns), textOf(givenRuns)];
    const englishPipeline = median(rates.englishPipeline);
    const [atOnce, atOnceUntranslated, oneAtATime, pipeline] = [
      median(rates.atOnce),
      median(rates.atOnceUntranslated),
      median(rates.oneAtATime),
      median(rates.pipeline),
    ];
    const pipelineEachLanguage = median(rates.pipelineEachLanguage);
    return {
      clips: clips.length,
      clipSeconds: first.seconds,
      repeats,
      atOnce,
      atOnceUntranslated,
      oneAtATime,
      pipeline,
      pipelineEachLanguage,
      atOnceOverPipeline: atOnce / pipeline,
      atOnceUntranslatedOverPipeline: atOnceUntranslated / pipeline,
      atOnceUntranslatedOverPipelineEachLanguage: atOnceUntranslated / pipelineEachLanguage,
      atOnceOverOneAtATime: atOnce / oneAtATime,
      pipelineOverOneAtATime: pipeline / oneAtATime,
      maxWerAtOnceVsAlone: maxWer,
      english: {
        atOnce: median(rates.englishAtOnce),
        atOnceGiven: median(rates.englishAtOnceGiven),
        pipeline: englishPipeline,
        atOnceOverPipeline: median(rates.englishAtOnce) / englishPipeline,
        atOnceGivenOverPipeline: median(rates.englishAtOnceGiven) / englishPipeline,
        maxWerGivenVsHeard: Math.max(...heard.map((reference, i) => wordErrorRate(reference, given[i] ?? ''))),
      },
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
  `Audio seconds transcribed per wall second (median of ${t.repeats}), interleaved: the ${t.clips} predictions created together through the service (each end learnt by its completion webhook), the same created together with \`translate: false\`, the same clips through the service one at a time, and faster-whisper's batched pipeline (BatchedInferencePipeline, 16 stretches a pass) over all of them in one call, in the one language it hears first, and with each stretch in the language heard in it (\`multilingual\`). The service does more than that pipeline: each stretch's own language and its word times, and (unless \`translate: false\`) the English of the whole clip.`,
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
      [
        'the same, each stretch in the language heard in it (`multilingual`)',
        n(t.pipelineEachLanguage),
        `${n(t.pipelineEachLanguage / t.oneAtATime)}×`,
      ],
    ],
  ),
  '',
  `At once ÷ the batched pipeline: **${n(t.atOnceOverPipeline)}×**, and ${n(t.atOnceUntranslatedOverPipeline)}× with \`translate: false\`. With \`translate: false\` against the pipeline writing each stretch in its own language, as the service does: ${n(t.atOnceUntranslatedOverPipelineEachLanguage)}×. Largest word error rate of a clip at once against the same clip one at a time: ${n(t.maxWerAtOnceVsAlone)}. Model seconds a prediction was billed (median): ${n(t.runtimeAtOnce)} s at once, ${n(t.runtimeAlone)} s alone.`,
  '',
  `The same number of clips of English alone, all at once: each stretch's language heard, or \`language: "en"\` given, where no stretch is heard alone and a prediction's stretches are packed into windows of 30 s, as the pipeline packs its speech; the pipeline told \`en\`.`,
  '',
  table(
    ['English clips', 'audio s / s', '÷ the batched pipeline'],
    [
      ['the service, all at once', n(t.english.atOnce), `${n(t.english.atOnceOverPipeline)}×`],
      [
        'the service, all at once, `language: "en"`',
        n(t.english.atOnceGiven),
        `**${n(t.english.atOnceGivenOverPipeline)}×**`,
      ],
      ["faster-whisper's batched pipeline, one call", n(t.english.pipeline), '1×'],
    ],
  ),
  '',
  `Largest word error rate of a clip given \`en\` against the same clip heard stretch by stretch: ${n(t.english.maxWerGivenVsHeard)}.`,
];
