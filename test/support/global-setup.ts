import type { TestProject } from 'vitest/node';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseModelFlag } from '../../local/brought-models.ts';
import { startLocalRuntime } from '../../local/runtime.ts';
import { LONG_MODEL_ID } from './long-model-id.ts';

export interface RuntimeInfo {
  readonly apiUrl: string;
  readonly apiToken: string;
  readonly accountId: string;
  /** The local account's owner (the console's sign-in), the owners' app client, and the Cognito emulator. */
  readonly owner: { readonly email: string; readonly password: string };
  readonly ownerClientId: string;
  readonly ownerPoolId: string;
  readonly cognitoEndpoint: string;
  readonly tableName: string;
  readonly dynamoEndpoint: string;
  /** fauxqs, unmetered: the tests peek at queues there. */
  readonly sqsEndpoint: string;
  readonly stepFunctionsEndpoint: string;
  /** The fleets' ECS and Application Auto Scaling endpoint, and the start of their clusters' names. */
  readonly fleets: { readonly endpoint: string; readonly clusterPrefix: string };
  /** The API front's origin, where /_local/processes lists the worker and model servers. */
  readonly origin: string;
  /** The outputs bucket, and the S3 emulator's endpoint. */
  readonly outputBucket: string;
  readonly s3Endpoint: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    runtime: RuntimeInfo;
  }
}

/** One local runtime (emulators, workflow, worker, model server) for all e2e suites. */
export default async function setup(project: TestProject) {
  const lines: string[] = [];
  // Every line this process and the runtime's children print is kept, for the privacy test.
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
    stream.write = (chunk: unknown, ...rest: unknown[]) => {
      const text = String(chunk);
      lines.push(text);
      // The service's own JSON log lines are kept, not shown: the reporter's output stays readable.
      if (text.startsWith('{"level"') && process.env.PROGNOZ_TEST_LOGS !== 'true') return true;
      return write(chunk, ...rest);
    };
  }
  process.env.POWERTOOLS_LOG_LEVEL = 'DEBUG';
  // Webhook retries 1, 2 and 3 s apart (instead of 5, 30, 120) so a suite sees all four attempts.
  process.env.PROGNOZ_WEBHOOK_RETRY_DELAYS = '1,2,3';
  // The sweeper every 2 s (on AWS, every minute), so tests of what it ends finish quickly.
  process.env.PROGNOZ_SCHEDULE_EVERY_SECONDS = '2';
  // A fleet an operator lets scale to zero stops its idle model server after 3 s (on AWS, minutes).
  process.env.PROGNOZ_LOCAL_SCALE_IN_SECONDS = '3';
  // No local weights, as in a fresh clone: a model that needs them (openai/whisper-large-v3-turbo) is withheld.
  const noWeights = mkdtempSync(path.join(tmpdir(), 'prognoz-no-weights-'));
  process.env.PROGNOZ_WEIGHTS_DIR = noWeights;
  // Two Cog predictors brought as a user brings them (`npm start -- --model …`): one that works, one whose setup fails.
  const fixtures = path.resolve(import.meta.dirname, '..', 'fixtures', 'cog');
  const models = [
    parseModelFlag(`acme/wordcount=${fixtures}/wordcount,price=0.02,collection=service-checks`),
    parseModelFlag(`acme/broken=${fixtures}/broken`),
    // Cog's other shapes (test/e2e/cog-shapes.test.ts): a plain function, and an async generator two at a time.
    // The function's id is 60 characters long, as real ids can be (test/e2e/long-model-id.test.ts).
    parseModelFlag(`${LONG_MODEL_ID}=${fixtures}/function`),
    parseModelFlag(`acme/async-stream=${fixtures}/async-stream`),
    // Cog's current shape, and what Cog gives a predictor (test/e2e/cog-parity.test.ts).
    parseModelFlag(`acme/runner=${fixtures}/runner`),
    // Files out (test/e2e/output-files.test.ts): an object holding images (Pillow), and an iterator of files.
    parseModelFlag(`acme/images=${fixtures}/images`),
    parseModelFlag(`acme/file-stream=${fixtures}/file-stream`),
  ];
  const runtime = await startLocalRuntime({
    port: 0,
    models,
    log: (line) => lines.push(line),
    localEndpoints: { logs: () => ({ lines }) },
  });
  project.provide('runtime', {
    apiUrl: runtime.apiUrl,
    apiToken: runtime.apiToken,
    accountId: runtime.accountId,
    owner: runtime.owner,
    ownerClientId: runtime.ownerClientId,
    ownerPoolId: runtime.ownerPoolId,
    cognitoEndpoint: runtime.cognitoEndpoint,
    tableName: runtime.tableName,
    dynamoEndpoint: runtime.dynamoEndpoint,
    sqsEndpoint: runtime.sqsEndpoint,
    stepFunctionsEndpoint: runtime.stepFunctionsEndpoint,
    fleets: runtime.fleets,
    origin: new URL(runtime.apiUrl).origin,
    outputBucket: runtime.outputs.bucket,
    s3Endpoint: runtime.outputs.s3Endpoint,
  });
  return async () => {
    await runtime.stop();
    rmSync(noWeights, { recursive: true, force: true });
  };
}
