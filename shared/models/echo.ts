import { z } from 'zod';
import type { ModelDefinition } from './definition.ts';
import { httpUrl } from './fields.ts';

/** A demo model for tests and benchmarks: echoes text (repeated), sleeps, fails on demand, fetches a file. */
export const echoModel = {
  id: 'prognoz/echo',
  description: 'Echoes its input text; can sleep, fail on purpose, and fetch a file to report its size and sha256.',
  input: z.strictObject({
    text: z.string().max(100_000).default('hello').describe('Text to echo back.'),
    repeat: z.number().int().min(1).max(100).default(1).describe('How many times the text comes back, joined: large outputs on demand.'),
    sleep: z.number().min(0).max(300).default(0).describe('Seconds to sleep before answering (cancelable).'),
    fail: z.boolean().default(false).describe('End the prediction failed with a model error.'),
    stream: z.boolean().default(false).describe('Stream the text word by word (the sleep spread between the words), as a language model streams tokens.'),
    file: httpUrl().optional().describe('An http(s) URL to fetch; its byte size and sha256 are returned.'),
  }),
  output: z.strictObject({
    text: z.string(),
    file: z
      .strictObject({
        url: z.string(),
        size: z.number().int().nonnegative(),
        sha256: z.string().regex(/^[0-9a-f]{64}$/),
      })
      .optional(),
  }),
  pricePerSecond: '0.01',
  holdSeconds: 30,
  // A short heartbeat: a lost echo run is noticed within 4 s (the default queue limit and attempts).
  timeouts: { runSeconds: 900, heartbeatSeconds: 2 },
  // A demo model: no GPU, a small instance, nothing kept warm.
  fleet: {
    instanceType: 't3.small',
    gpus: 0,
    memoryMiB: 512,
    minWarmTasks: 0,
    maxTasks: 2,
    backlogPerTask: 20,
    dockerfile: 'models/echo/Dockerfile',
  },
} as const satisfies ModelDefinition;
