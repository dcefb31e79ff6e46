import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { localProcesses } from '../../bench/local-endpoints.ts';
import { alive, commandLine } from '../../bench/processes.ts';
import { groupRuns } from '../../local/process-group.ts';
import { RESTART_ERROR } from '../../local/runtime.ts';
import { generateToken } from '../../shared/domain/tokens.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const TOKEN = generateToken();

interface Started {
  readonly child: ChildProcess;
  readonly apiUrl: string;
  readonly output: () => string;
}

/** `npm start`'s own entry point, in a child process, as a user runs it. */
const startRuntime = async (dataDir: string): Promise<Started> => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'local/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', PROGNOZ_DATA_DIR: dataDir, PROGNOZ_API_TOKEN: TOKEN },
    stdio: ['ignore', 'pipe', 'pipe'],
    // A process group of its own, as a terminal's foreground job: a Ctrl-C goes to all of it.
    detached: true,
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 90_000;
  for (;;) {
    const match = /API\s+(http:\/\/\S+)/.exec(output);
    if (match?.[1]) return { child, apiUrl: match[1], output: () => output };
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the runtime did not start:\n${output}`);
    await sleep(100);
  }
};

/**
 * Ctrl-C, as a terminal sends it: SIGINT to every process of the foreground job's group; the job is
 * done, as a shell tells it, once nothing of the group runs (tsx's esbuild service, a child of
 * the runtime's own process, ends as its parent's pipe closes, a moment after it).
 */
const stopRuntime = async (started: Started): Promise<number | null> => {
  const pgid = started.child.pid ?? 0;
  const exited = new Promise<number | null>((resolve) => started.child.once('exit', (code) => resolve(code)));
  process.kill(-pgid, 'SIGINT');
  const code = await exited;
  await expect.poll(() => groupRuns(pgid), { timeout: 5000 }).toBe(false);
  return code;
};

const statOf = (pid: string): string => {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').trim();
  } catch {
    return '';
  }
};

/** Every process still running that the runtime started, at any depth: they all carry its data folder in their environment. */
const startedBy = (dataDir: string): string[] =>
  readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`PROGNOZ_DATA_DIR=${dataDir}`);
      } catch {
        return false;
      }
    })
    // One in the middle of ending has no command line left; its stat still names it and its group.
    .map((pid) => `${pid} ${commandLine(Number(pid)) || statOf(pid)}`);

const request = async (apiUrl: string, pathName: string, init: RequestInit = {}) => {
  const response = await fetch(new URL(pathName, apiUrl), {
    ...init,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
      ...(init.headers as Record<string, string> | undefined),
    },
  });
  return (await response.json()) as { id: string; status: string; error: string | null };
};

describe('the local runtime (npm start)', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'prognoz-restart-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('stops cleanly on Ctrl-C, and after a restart the prediction it interrupted ends failed with a clear error', async () => {
    const first = await startRuntime(dataDir);
    const created = await request(first.apiUrl, 'prognoz/echo', {
      method: 'POST',
      body: JSON.stringify({ sleep: 60 }),
    });
    const deadline = Date.now() + 20_000;
    while ((await request(first.apiUrl, `predictions/${created.id}`)).status !== 'processing') {
      if (Date.now() > deadline) throw new Error('the prediction never started processing');
      await sleep(100);
    }
    const origin = new URL(first.apiUrl).origin;
    const children = await localProcesses(origin);

    expect(await stopRuntime(first)).toBe(0);
    expect(first.output()).toContain('prognoz: stopped.');
    expect(children.filter((child) => child.pid !== null && alive(child.pid))).toEqual([]);
    expect(startedBy(dataDir)).toEqual([]);

    const second = await startRuntime(dataDir);
    try {
      expect(second.output()).toContain(`recovered prediction ${created.id}`);
      const after = await request(second.apiUrl, `predictions/${created.id}`);
      expect(after.status).toBe('failed');
      expect(after.error).toBe(RESTART_ERROR);
      const fresh = await request(second.apiUrl, 'prognoz/echo', {
        method: 'POST',
        body: JSON.stringify({ text: 'again' }),
        headers: { prefer: 'wait' },
      });
      expect(fresh.status).toBe('succeeded');
    } finally {
      expect(await stopRuntime(second)).toBe(0);
    }
  });
});
