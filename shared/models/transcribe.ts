import { z } from 'zod';
import type { ModelDefinition } from './definition.ts';
import { httpUrl } from './fields.ts';

/** The languages Whisper base knows (its 99 language tokens). */
export const WHISPER_LANGUAGES = [
  'af', 'am', 'ar', 'as', 'az', 'ba', 'be', 'bg', 'bn', 'bo', 'br', 'bs', 'ca', 'cs', 'cy', 'da', 'de', 'el', 'en', 'es',
  'et', 'eu', 'fa', 'fi', 'fo', 'fr', 'gl', 'gu', 'ha', 'haw', 'he', 'hi', 'hr', 'ht', 'hu', 'hy', 'id', 'is', 'it', 'ja',
  'jw', 'ka', 'kk', 'km', 'kn', 'ko', 'la', 'lb', 'ln', 'lo', 'lt', 'lv', 'mg', 'mi', 'mk', 'ml', 'mn', 'mr', 'ms', 'mt',
  'my', 'ne', 'nl', 'nn', 'no', 'oc', 'pa', 'pl', 'ps', 'pt', 'ro', 'ru', 'sa', 'sd', 'si', 'sk', 'sl', 'sn', 'so', 'sq',
  'sr', 'su', 'sv', 'sw', 'ta', 'te', 'tg', 'th', 'tk', 'tl', 'tr', 'tt', 'uk', 'ur', 'uz', 'vi', 'yi', 'yo', 'zh',
] as const;

export const MAX_SPEAKERS = 10;

const word = z.strictObject({
  word: z.string(),
  start: z.number().nonnegative().describe('Seconds from the start of the audio.'),
  end: z.number().nonnegative(),
  probability: z.number().min(0).max(1),
});

const segment = z.strictObject({
  id: z.number().int().nonnegative(),
  start: z.number().nonnegative().describe('Seconds from the start of the audio.'),
  end: z.number().nonnegative(),
  text: z.string(),
  speaker: z.string().optional().describe('`SPEAKER_00`, `SPEAKER_01`, …; present when diarize is true.'),
  words: z.array(word).optional().describe('Present when word_timestamp is true.'),
});

/** Speech transcription with Whisper base (spec §2.3, §2.4; DESIGN §6). */
export const whisperBaseModel = {
  id: 'openai/whisper-base',
  description: 'Transcribes speech in any of 99 languages, translates it to English, and tells speakers apart.',
  input: z.strictObject({
    audio: httpUrl().describe('The audio file: wav, flac, mp3, ogg, m4a and other common formats.'),
    model: z.enum(['base']).default('base').describe('The Whisper model; set by the service.'),
    diarize: z.boolean().default(false).describe('Label each segment with its speaker.'),
    language: z.enum(['auto', ...WHISPER_LANGUAGES]).default('auto').describe('`auto` to detect, or a language code.'),
    speakers: z.number().int().min(1).max(MAX_SPEAKERS).default(1).describe('How many speakers to expect when diarizing.'),
    word_timestamp: z.boolean().default(false).describe('Give each segment its words with their times.'),
  }),
  output: z.strictObject({
    segments: z.array(segment),
    transcription: z.string(),
    translation: z.string().nullable().describe('The English translation when the audio is not English; null when it is.'),
    detected_language: z.string(),
  }),
  pricePerSecond: '0.05',
  holdSeconds: 60,
  timeouts: { runSeconds: 3600, heartbeatSeconds: 30 },
  fleet: {
    instanceType: 'g5.xlarge',
    gpus: 1,
    memoryMiB: 12_000,
    minWarmTasks: 0,
    maxTasks: 4,
    backlogPerTask: 5,
    dockerfile: 'models/transcribe/Dockerfile',
  },
} as const satisfies ModelDefinition;
