import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { identityOf, isRunning, ownIdentity, type ProcessIdentity } from '../../cli/local-runtime.ts';
import { DataFolderInUse, LOCK_FILE, takeDataFolder, type FolderHolder } from '../../local/data-folder.ts';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});
const newFolder = () => {
  const folder = mkdtempSync(path.join(tmpdir(), 'prognoz-data-folder-'));
  folders.push(folder);
  return folder;
};

/** A process that has run and ended: its pid names nothing now (or, much later, another process). */
const goneProcess = (): ProcessIdentity => {
  const ended = spawnSync('true');
  return { pid: ended.pid ?? 1, startTicks: null };
};

const lockOf = (folder: string) => JSON.parse(readFileSync(path.join(folder, LOCK_FILE), 'utf8')) as FolderHolder;
const leaveLock = (folder: string, holder: Partial<FolderHolder>) =>
  writeFileSync(
    path.join(folder, LOCK_FILE),
    JSON.stringify({
      runtime: goneProcess(),
      lifeline: null,
      port: 8080,
      apiUrl: 'https://127.0.0.1:8080/api/v1/',
      startedAt: '2026-12-01T10:00:00.000Z',
      ...holder,
    }),
  );

const take = (folder: string, lines: string[] = []) =>
  takeDataFolder(folder, { port: 8081, lifeline: null, log: (line) => lines.push(line) });

describe("a local runtime's data folder", () => {
  it('is taken with a lock that names its runtime, where it serves once it does, and is given back at release', async () => {
    const folder = newFolder();
    const held = await take(folder);
    expect(lockOf(folder)).toMatchObject({ runtime: ownIdentity(), port: 8081, apiUrl: null });
    held.serving(8081, 'https://127.0.0.1:8081/api/v1/');
    expect(lockOf(folder)).toMatchObject({ port: 8081, apiUrl: 'https://127.0.0.1:8081/api/v1/' });
    held.release();
    expect(existsSync(path.join(folder, LOCK_FILE))).toBe(false);
  });

  it('is refused to a second runtime while its holder runs, naming the holder and how to run beside it, and the lock stays', async () => {
    const folder = newFolder();
    const first = await take(folder);
    const before = readFileSync(path.join(folder, LOCK_FILE), 'utf8');
    const refusal = await take(folder).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(DataFolderInUse);
    expect((refusal as Error).message).toContain(
      `in use by the local runtime with pid ${String(process.pid)}, serving port 8081`,
    );
    expect((refusal as Error).message).toContain('PROGNOZ_DATA_DIR=/path/to/another/folder PORT=8081 npm start');
    expect(readFileSync(path.join(folder, LOCK_FILE), 'utf8')).toBe(before);
    first.release();
  });

  it('is taken over from a runtime that is gone, or whose pid now names another process, with a line saying so', async () => {
    for (const runtime of [goneProcess(), { pid: process.pid, startTicks: 'not-this-process' }]) {
      const folder = newFolder();
      leaveLock(folder, { runtime });
      const lines: string[] = [];
      const held = await take(folder, lines);
      expect(lines).toEqual([
        `prognoz: taking over the data folder from the runtime with pid ${String(runtime.pid)} (started 2026-12-01T10:00:00.000Z), which is gone`,
      ]);
      expect(lockOf(folder).runtime).toEqual(ownIdentity());
      held.release();
    }
  });

  it('is taken over from a lock that cannot be read', async () => {
    const folder = newFolder();
    writeFileSync(path.join(folder, LOCK_FILE), '{"pid": tru');
    const lines: string[] = [];
    (await take(folder, lines)).release();
    expect(lines).toEqual([`prognoz: ${path.join(folder, LOCK_FILE)} could not be read; taking the data folder over`]);
  });

  it("waits, when its runtime was killed outright, until that runtime's lifeline has ended its processes", async () => {
    const folder = newFolder();
    const lifeline = spawn('sleep', ['1']);
    const ended = new Promise((resolve) => lifeline.once('exit', resolve));
    leaveLock(folder, { lifeline: identityOf(lifeline.pid ?? 0) });
    const lines: string[] = [];
    const held = await take(folder, lines);
    await ended;
    expect(lines[0]).toMatch(/^prognoz: waiting for the runtime that held the data folder \(pid \d+, gone\)/);
    held.release();
  });

  it('is not given up by a release once another runtime holds it', async () => {
    const folder = newFolder();
    const held = await take(folder);
    leaveLock(folder, { runtime: ownIdentity(), port: 9999 });
    held.release();
    expect(lockOf(folder).port).toBe(9999);
  });
});

describe('a process identity', () => {
  it('is running while its process runs, and not once it has ended or for another start time', async () => {
    const child = spawn('sleep', ['5']);
    const identity = identityOf(child.pid ?? 0);
    expect(isRunning(identity)).toBe(true);
    expect(isRunning({ ...identity, startTicks: `${identity.startTicks ?? ''}1` })).toBe(false);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    await sleep(50);
    expect(isRunning(identity)).toBe(false);
  });
});

describe("a runtime's lifeline", () => {
  it('removes the files it was told of once the runtime is killed outright, but not those it was told to keep', async () => {
    const folder = newFolder();
    const removed = path.join(folder, 'runtime lock');
    const kept = path.join(folder, 'kept');
    for (const file of [removed, kept]) writeFileSync(file, 'x');
    const holder = spawn(
      process.execPath,
      ['--import', 'tsx', path.resolve(import.meta.dirname, '..', 'fixtures', 'lifeline', 'holder.ts'), removed, kept],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
    // Its pipe to the watcher is written: give the watcher a moment to read both lines.
    await sleep(200);
    holder.kill('SIGKILL');
    for (let waited = 0; waited < 10_000 && existsSync(removed); waited += 100) await sleep(100);
    expect(existsSync(removed)).toBe(false);
    expect(existsSync(kept)).toBe(true);
  });
});
