import { PutItemCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runningLocalRuntime, runtimeFileIn, type LocalRuntimeFile } from '../../cli/local-runtime.ts';
import { LOCK_FILE } from '../../local/data-folder.ts';
import type { PredictionView } from '../../shared/api/prediction-view.ts';
import { generateToken } from '../../shared/domain/tokens.ts';
import { apiCall, type ApiTarget } from '../support/http-client.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';

/**
 * `npm start` as users run it, several times over, each on a data folder of its own (the suites'
 * runtime is not one of them): one runtime a folder, side by side on two, a start after Ctrl-C
 * and after `kill -9`, and the admin CLI pointed at each.
 */
const ROOT = path.resolve(import.meta.dirname, '..', '..');
const FUNCTION_PREDICTOR = path.join('test', 'fixtures', 'cog', 'function');
const runFile = promisify(execFile);

interface Started {
  readonly child: ChildProcess;
  readonly output: string[];
  readonly exited: Promise<number | null>;
}

/** `npm start` (local/main.ts) on a data folder, with these flags. */
const npmStart = (dataDir: string, token: string, ...flags: string[]): Started => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'local/main.ts', ...flags], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', PROGNOZ_DATA_DIR: dataDir, PROGNOZ_API_TOKEN: token },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  for (const stream of [child.stdout, child.stderr])
    stream.on('data', (chunk: Buffer) => output.push(...chunk.toString().split('\n')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output, exited };
};

/** Waits until the runtime on `dataDir` serves, as the admin CLI finds it: by its runtime.json. */
const serving = async (started: Started, dataDir: string): Promise<LocalRuntimeFile> => {
  for (let waited = 0; waited < 240_000; waited += 250) {
    const running = runningLocalRuntime(dataDir);
    if (running !== null && running.runtime.pid === started.child.pid) return running;
    if (started.child.exitCode !== null) throw new Error(`npm start exited:\n${started.output.join('\n')}`);
    await sleep(250);
  }
  throw new Error(`npm start did not serve in time:\n${started.output.join('\n')}`);
};

/** `npx prognoz …` with PROGNOZ_DATA_DIR as given (or not at all). */
const prognoz = async (env: Record<string, string>, ...args: string[]) => {
  const withoutFolder = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'PROGNOZ_DATA_DIR'));
  try {
    const { stdout } = await runFile(process.execPath, [path.join(ROOT, 'bin', 'prognoz.mjs'), ...args], {
      cwd: ROOT,
      env: { ...withoutFolder, ...env },
    });
    return { code: 0, stdout, stderr: '' };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
};

const folders = [0, 1].map(() => mkdtempSync(path.join(tmpdir(), 'prognoz-folder-')));
const [FOLDER_A = '', FOLDER_B = ''] = folders;
const tokens = [generateToken(), generateToken()] as const;
const running: Started[] = [];
let receiver: Receiver;
let a: Started;
let b: Started;
let apiA: ApiTarget;
let apiB: ApiTarget;
let slowId = '';

beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  for (const started of running) started.child.kill('SIGKILL');
  await Promise.all(running.map((started) => started.exited));
  // Its lifeline gives the folder up within its grace; the folders go with it.
  await sleep(1000);
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  await receiver.close();
}, 60_000);

describe('local runtimes and their data folders', () => {
  it('run side by side on two folders, each on its own port, each running its own predictions', async () => {
    a = npmStart(FOLDER_A, tokens[0], '--model', `acme/slow=${FUNCTION_PREDICTOR}`);
    b = npmStart(FOLDER_B, tokens[1]);
    running.push(a, b);
    const [onA, onB] = await Promise.all([serving(a, FOLDER_A), serving(b, FOLDER_B)]);
    expect(onA.port).not.toBe(onB.port);
    expect([onA.dataDir, onB.dataDir]).toEqual([FOLDER_A, FOLDER_B]);
    apiA = { apiUrl: onA.apiUrl, apiToken: tokens[0] };
    apiB = { apiUrl: onB.apiUrl, apiToken: tokens[1] };

    const slow = await apiCall<PredictionView>(apiA, 'acme/slow', {
      method: 'POST',
      body: { text: 'interrupted', sleep: 60, webhook: `${receiver.url}/slow` },
      headers: { Prefer: 'respond-async' },
    });
    expect(slow.status, JSON.stringify(slow.json)).toBe(201);
    slowId = slow.json.id;
    const echoed = await apiCall<PredictionView>(apiB, 'prognoz/echo', {
      method: 'POST',
      body: { text: 'beside' },
      headers: { Prefer: 'wait' },
    });
    expect(echoed.json).toMatchObject({ status: 'succeeded' });
    // Each runtime's predictions are its own.
    expect((await apiCall(apiB, `predictions/${slowId}`)).status).toBe(404);
    for (let waited = 0; waited < 60_000; waited += 250) {
      if ((await apiCall<PredictionView>(apiA, `predictions/${slowId}`)).json.status === 'processing') break;
      await sleep(250);
    }
    expect((await apiCall<PredictionView>(apiA, `predictions/${slowId}`)).json.status).toBe('processing');
  }, 300_000);

  it('refuse a second start on a folder in use before it starts anything, naming the holder; the first goes on', async () => {
    const file = readFileSync(runtimeFileIn(FOLDER_A), 'utf8');
    const lock = readFileSync(path.join(FOLDER_A, LOCK_FILE), 'utf8');
    const second = npmStart(FOLDER_A, generateToken());
    expect(await second.exited).toBe(1);
    const said = second.output.join('\n');
    expect(said).toContain(
      `the data folder ${FOLDER_A} is in use by the local runtime with pid ${String(a.child.pid)}`,
    );
    expect(said).toContain(`serving ${apiA.apiUrl}`);
    expect(said).toContain('PROGNOZ_DATA_DIR=/path/to/another/folder PORT=8081 npm start');
    expect(said).not.toMatch(/^\s+at /m);
    expect(readFileSync(runtimeFileIn(FOLDER_A), 'utf8')).toBe(file);
    expect(readFileSync(path.join(FOLDER_A, LOCK_FILE), 'utf8')).toBe(lock);
    expect((await apiCall<PredictionView>(apiA, `predictions/${slowId}`)).json.status).toBe('processing');
  }, 120_000);

  it('are administered by `npx prognoz`, each through its folder, the runtime named in the human output', async () => {
    const created = await prognoz({ PROGNOZ_DATA_DIR: FOLDER_A }, 'accounts', 'create', '--balance', '5', '--json');
    expect(created.code, created.stderr).toBe(0);
    const { id } = JSON.parse(created.stdout) as { id: string };
    const shownOnA = await prognoz({}, 'accounts', 'show', id, '--data-dir', FOLDER_A);
    expect(shownOnA.stdout).toContain(
      `(the local runtime on port ${new URL(apiA.apiUrl).port} (data folder ${FOLDER_A}))`,
    );
    expect(shownOnA.stdout).toContain('balance   5.00 ₽');
    const onB = await prognoz({ PROGNOZ_DATA_DIR: FOLDER_B }, 'accounts', 'show', id);
    expect(onB.code).toBe(1);
    expect(onB.stderr).toContain(`no account ${id} in the local runtime on port ${new URL(apiB.apiUrl).port}`);
    const none = await prognoz({}, 'accounts', 'show', id, '--data-dir', mkdtempSync(path.join(tmpdir(), 'none-')));
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/no local runtime is running on the data folder .*none-/);
  }, 60_000);

  it('start again on a folder whatever the last run left: a model no longer brought, a record that does not read, Ctrl-C mid-run', async () => {
    // A record of a prediction that no version of prognoz wrote.
    const onA = runningLocalRuntime(FOLDER_A);
    if (onA === null) throw new Error('A is not running');
    const dynamo = new DynamoDBClient({
      endpoint: onA.dynamoEndpoint,
      region: onA.region,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    await dynamo.send(
      new PutItemCommand({
        TableName: onA.tableName,
        Item: {
          pk: { S: 'PREDICTION#garbled' },
          sk: { S: 'PREDICTION' },
          type: { S: 'prediction' },
          status: { S: 'processing' },
        },
      }),
    );
    const balanceBefore = (await apiCall<{ balance: number; held: number }>(apiA, 'account')).json;

    // Ctrl-C while acme/slow runs: the runtime stops in order, and gives its folder up.
    a.child.kill('SIGINT');
    expect(await a.exited).toBe(0);
    expect(existsSync(path.join(FOLDER_A, LOCK_FILE))).toBe(false);
    expect(existsSync(runtimeFileIn(FOLDER_A))).toBe(false);

    // Started again without acme/slow, with a webhook receiver waiting for the prediction's end.
    const again = npmStart(FOLDER_A, tokens[0]);
    running.push(again);
    const restarted = await serving(again, FOLDER_A);
    apiA = { apiUrl: restarted.apiUrl, apiToken: tokens[0] };
    const said = again.output.join('\n');
    expect(said).toMatch(/the record PREDICTION#garbled cannot be read back as a prediction, and was left as it is/);
    const slow = (await apiCall<PredictionView>(apiA, `predictions/${slowId}`)).json;
    expect(slow.status).toBe('failed');
    expect(slow.error).toMatch(/^model acme\/slow is no longer offered/);
    const balanceAfter = (await apiCall<{ balance: number; held: number }>(apiA, 'account')).json;
    // Its hold released, and nothing charged for it.
    expect(balanceAfter.held).toBe(0);
    expect(balanceAfter.balance).toBe(balanceBefore.balance);
    // And its webhook is sent, as for any other end.
    for (let waited = 0; waited < 30_000 && receiver.accepted(slowId).length === 0; waited += 250) await sleep(250);
    expect(
      receiver.accepted(slowId).map((delivery) => (JSON.parse(delivery.body) as { status: string }).status),
    ).toContain('failed');
  }, 300_000);

  it('take a folder over from a runtime killed outright (kill -9), once its processes are ended', async () => {
    const [last] = running.slice(-1);
    if (!last) throw new Error('no runtime on A');
    last.child.kill('SIGKILL');
    await last.exited;
    // Its runtime.json is still there, and trusted by nobody.
    const orphaned = await prognoz({ PROGNOZ_DATA_DIR: FOLDER_A }, 'accounts', 'show', 'local');
    expect(orphaned.code).toBe(1);
    expect(orphaned.stderr).toContain(`no local runtime is running on the data folder ${FOLDER_A}`);
    const next = npmStart(FOLDER_A, tokens[0]);
    running.push(next);
    const taken = await serving(next, FOLDER_A);
    expect(taken.runtime.pid).toBe(next.child.pid);
    const echoed = await apiCall<PredictionView>({ apiUrl: taken.apiUrl, apiToken: tokens[0] }, 'prognoz/echo', {
      method: 'POST',
      body: { text: 'after kill -9' },
      headers: { Prefer: 'wait' },
    });
    expect(echoed.json).toMatchObject({ status: 'succeeded' });
    next.child.kill('SIGTERM');
    expect(await next.exited).toBe(0);
    b.child.kill('SIGTERM');
    expect(await b.exited).toBe(0);
  }, 300_000);
});
