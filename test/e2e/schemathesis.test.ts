import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CognitoIdentityProviderClient, InitiateAuthCommand } from '@aws-sdk/client-cognito-identity-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXTRA_CATALOG_ENV } from '../../shared/config/model-catalog.ts';
import { startRuntimeProcess, type RuntimeProcessReady } from '../support/runtime-process-child.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const SCHEMATHESIS = path.join(ROOT, '.venv', 'bin', 'schemathesis');
/**
 * The fuzzing phase repeats until this is spent; examples and coverage take ~25 s before it. Half
 * a minute of it, in every run of the suite (which must fit its time on two cores); a longer hunt is
 * `SCHEMATHESIS_FUZZ_SECONDS=600 npx vitest run test/e2e/schemathesis.test.ts`.
 */
const FUZZ_SECONDS = Number(process.env.SCHEMATHESIS_FUZZ_SECONDS ?? 30);
/** The owner's routes are few: a short fuzzing phase covers them. */
const OWNER_FUZZ_SECONDS = 20;
const CHECKS = [
  'not_a_server_error',
  'status_code_conformance',
  'content_type_conformance',
  'response_schema_conformance',
];

let runtimeProcess: ChildProcess | undefined;
/** The service's error lines, shown with a failure: what the fuzzer's request did inside. */
const serviceErrors: string[] = [];
let started: RuntimeProcessReady;

/**
 * A runtime of its own, as `npm start` runs it: the fuzzer fills queues with long sleeps, makes
 * hundreds of predictions and asks for webhooks to random hosts, none of which the other suites
 * should wait behind.
 */
beforeAll(async () => {
  // Its own models, as `npm start` has them: not the catalog the suites' runtime adds (acme/*).
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== EXTRA_CATALOG_ENV));
  const runtime = startRuntimeProcess({
    env,
    onLine: (line) => {
      if (line.includes('"level":"ERROR"')) serviceErrors.push(line.slice(0, 2000));
    },
  });
  runtimeProcess = runtime.child;
  started = await runtime.ready;
}, 120_000);

afterAll(async () => {
  const child = runtimeProcess;
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}, 60_000);

interface Run {
  readonly status: number | null;
  readonly output: string;
}

const runSchemathesis = (args: readonly string[]): Promise<Run> => {
  // Its working folder takes the cache it keeps (.schemathesis/); the run starts from none.
  const folder = mkdtempSync(path.join(tmpdir(), 'prognoz-schemathesis-'));
  const child = spawn(SCHEMATHESIS, args, { cwd: folder, env: { ...process.env, NO_COLOR: '1' } });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => {
    child.once('exit', (status) => {
      rmSync(folder, { recursive: true, force: true });
      resolve({ status, output });
    });
  });
};

describe('Schemathesis against the local runtime, from GET /api/v1/openapi.json', () => {
  it(
    'finds no server error and no answer the document does not describe, in the examples, coverage and fuzzing phases',
    async () => {
      const run = await runSchemathesis([
        'run',
        `${started.apiUrl}openapi.json`,
        '--header',
        `Authorization: Bearer ${started.apiToken}`,
        '--checks',
        CHECKS.join(','),
        '--phases',
        'examples,coverage,fuzzing',
        '--max-time',
        String(FUZZ_SECONDS),
        '--max-examples',
        '30',
        // A create may wait 60 s (Prefer: wait=60) behind the fuzzer's own sleeps.
        '--request-timeout',
        '90',
        '--workers',
        '2',
        '--generation-database',
        'none',
        '--no-color',
      ]);
      // Every operation of the document was tested (none excluded), and none failed.
      expect(run.output, run.output).toMatch(/Selected: (\d+)\/\1\s+Tested: \1/);
      // A failing case's body may be megabytes long: long lines are cut for the report.
      const report = run.output
        .split('\n')
        .map((line) => (line.length > 400 ? `${line.slice(0, 400)}… (${line.length} characters)` : line))
        .join('\n');
      expect(run.status, `${report}\n\nThe service's errors:\n${serviceErrors.join('\n')}`).toBe(0);
    },
    (FUZZ_SECONDS + 240) * 1000,
  );

  it(
    'finds nothing either in the routes only an owner may call (the account, its limit, its tokens), signed in as the owner',
    async () => {
      const cognito = new CognitoIdentityProviderClient({
        endpoint: started.cognitoEndpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      });
      const { AuthenticationResult } = await cognito.send(
        new InitiateAuthCommand({
          AuthFlow: 'USER_PASSWORD_AUTH',
          ClientId: started.ownerClientId,
          AuthParameters: { USERNAME: started.owner.email, PASSWORD: started.owner.password },
        }),
      );
      const run = await runSchemathesis([
        'run',
        `${started.apiUrl}openapi.json`,
        '--header',
        `Authorization: Bearer ${AuthenticationResult?.AccessToken ?? ''}`,
        '--include-path-regex',
        '^/account',
        '--checks',
        CHECKS.join(','),
        '--phases',
        'examples,coverage,fuzzing',
        '--max-time',
        String(OWNER_FUZZ_SECONDS),
        '--max-examples',
        '30',
        '--workers',
        '2',
        '--generation-database',
        'none',
        '--no-color',
      ]);
      expect(run.output, run.output).toMatch(/Selected: 5\/\d+\s+Tested: 5\b/);
      expect(run.status, `${run.output}\n\nThe service's errors:\n${serviceErrors.join('\n')}`).toBe(0);
    },
    (OWNER_FUZZ_SECONDS + 120) * 1000,
  );
});
