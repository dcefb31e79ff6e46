import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXTRA_CATALOG_ENV } from '../../shared/models/registry.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const SCHEMATHESIS = path.join(ROOT, '.venv', 'bin', 'schemathesis');
/** The fuzzing phase repeats until this is spent; examples and coverage take ~25 s before it. */
const FUZZ_SECONDS = 120;
const CHECKS = ['not_a_server_error', 'status_code_conformance', 'content_type_conformance', 'response_schema_conformance'];

let runtimeProcess: ChildProcess | undefined;
/** The service's error lines, shown with a failure: what the fuzzer's request did inside. */
const serviceErrors: string[] = [];
let apiUrl = '';
let apiToken = '';

/**
 * A runtime of its own, as `npm start` runs it: the fuzzer fills queues with long sleeps, makes
 * hundreds of predictions and asks for webhooks to random hosts, none of which the other suites
 * should wait behind.
 */
beforeAll(async () => {
  // Its own models, as `npm start` has them: not the catalog the suites' runtime adds (acme/*).
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== EXTRA_CATALOG_ENV));
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'test', 'support', 'runtime-process.ts')], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  runtimeProcess = child;
  const started = await new Promise<{ apiUrl: string; apiToken: string }>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the fuzzer's runtime exited (${code}) before it was up`)));
    if (!child.stdout) throw new Error('no stdout');
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.startsWith('{"apiUrl"')) resolve(JSON.parse(line) as { apiUrl: string; apiToken: string });
      else if (line.includes('"level":"ERROR"')) serviceErrors.push(line.slice(0, 2000));
    });
  });
  ({ apiUrl, apiToken } = started);
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
        `${apiUrl}openapi.json`,
        '--header',
        `Authorization: Bearer ${apiToken}`,
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
});
