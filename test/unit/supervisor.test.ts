import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { Supervisor } from '../../local/supervisor.ts';

/** Running, not a zombie waiting for a parent that may never reap it (an orphan in a container). */
const alive = (pid: number): boolean => {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return false;
  }
};

/** Resolves with the first number the process prints after `tag=`. */
const printed = (lines: string[], tag: string): Promise<number> =>
  new Promise((resolve, reject) => {
    const deadline = Date.now() + 10_000;
    const look = () => {
      const match = lines.map((line) => new RegExp(`${tag}=(\\d+)`).exec(line)).find(Boolean);
      if (match) resolve(Number(match[1]));
      else if (Date.now() > deadline) reject(new Error(`no ${tag}= line in ${lines.join('\n')}`));
      else setTimeout(look, 20);
    };
    look();
  });

describe('supervisor', () => {
  const leftovers: number[] = [];
  afterEach(() => {
    for (const pid of leftovers.splice(0)) if (alive(pid)) process.kill(pid, 'SIGKILL');
  });

  // A model server leaves a run-folder pruner in its group that sleeps a minute between checks;
  // when the server itself stops at once, its stop in order must still end the pruner.
  it('ends what a process left in its group when the process stops within its grace', async () => {
    const lines: string[] = [];
    const supervisor = new Supervisor((line) => lines.push(line));
    supervisor.start({
      name: 'server',
      command: 'sh',
      args: ['-c', 'sleep 60 & echo "left=$!"; trap "exit 0" TERM; while :; do sleep 0.1; done'],
      env: {},
      cwd: process.cwd(),
    });
    const left = await printed(lines, 'left');
    leftovers.push(left);

    await supervisor.stopAll();

    await expect.poll(() => alive(left), { timeout: 3000 }).toBe(false);
  });

  // A model server that crashes leaves its own worker and its pruner behind unless its group ends with it.
  it('ends what a process left in its group when the process exits by itself, and starts it again', async () => {
    const lines: string[] = [];
    const supervisor = new Supervisor((line) => lines.push(line));
    supervisor.start({
      name: 'crashing',
      command: 'sh',
      args: ['-c', 'sleep 60 & echo "left=$!"; sleep 0.5; exit 3'],
      env: {},
      cwd: process.cwd(),
    });
    const leftBy = () => lines.flatMap((line) => /left=(\d+)/.exec(line)?.[1] ?? []).map(Number);
    await expect.poll(() => leftBy().length, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    leftovers.push(...leftBy());
    await supervisor.stopAll();

    expect(lines).toContain('[crashing] exited (3); restarting');
    expect(supervisor.status()[0]?.restarts).toBeGreaterThanOrEqual(1);
    for (const pid of leftBy()) await expect.poll(() => alive(pid), { timeout: 3000 }).toBe(false);
  });

  it('kills the whole group of a process that outlives its grace', async () => {
    const lines: string[] = [];
    const supervisor = new Supervisor((line) => lines.push(line));
    supervisor.start({
      name: 'stubborn',
      command: 'sh',
      args: ['-c', 'sleep 60 & echo "left=$!"; trap "" TERM; while :; do sleep 0.1; done'],
      env: {},
      cwd: process.cwd(),
    });
    const left = await printed(lines, 'left');
    leftovers.push(left);

    await supervisor.stop('stubborn', 300);
    await supervisor.stopAll();

    await expect.poll(() => alive(left), { timeout: 3000 }).toBe(false);
    expect(supervisor.status()).toEqual([]);
  });
});
