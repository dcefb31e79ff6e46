import { afterEach, describe, expect, it } from 'vitest';
import { alive } from '../../bench/processes.ts';
import { Supervisor } from '../../local/supervisor.ts';

describe('supervisor', () => {
  const started: (() => number[])[] = [];
  afterEach(() => {
    for (const pid of started.splice(0).flatMap((leftBehind) => leftBehind()))
      if (alive(pid)) process.kill(pid, 'SIGKILL');
  });

  /**
   * A supervisor running `script` in a shell that first leaves a `sleep 60` in its process group,
   * as a model server leaves its own worker and its run-folder pruner, and prints its pid.
   */
  const superviseShell = (name: string, script: string) => {
    const lines: string[] = [];
    const supervisor = new Supervisor((line) => lines.push(line));
    supervisor.start({
      name,
      command: 'sh',
      args: ['-c', `sleep 60 & echo "left=$!"; ${script}`],
      env: {},
      cwd: process.cwd(),
    });
    /** The pids of what each start of the script left behind, so far. */
    const leftBehind = () => lines.flatMap((line) => /left=(\d+)/.exec(line)?.[1] ?? []).map(Number);
    started.push(leftBehind);
    return { supervisor, lines, leftBehind };
  };

  // The pruner sleeps a minute between checks: when the server stops at once, its stop in order
  // must still end the pruner.
  it('ends what a process left in its group when the process stops within its grace', async () => {
    const { supervisor, leftBehind } = superviseShell('server', 'trap "exit 0" TERM; while :; do sleep 0.1; done');
    await expect.poll(() => leftBehind().length, { timeout: 10_000 }).toBe(1);

    await supervisor.stopAll();

    await expect.poll(() => leftBehind().some(alive), { timeout: 3000 }).toBe(false);
  });

  // `npm start` says "stopped" once its stop resolves: what a model server left in its group, still
  // ending then, was seen running after the runtime had exited.
  it('resolves its stop only once what a process left in its group has ended, however slowly it ends', async () => {
    const lines: string[] = [];
    const supervisor = new Supervisor((line) => lines.push(line));
    supervisor.start({
      name: 'server',
      command: 'sh',
      args: ['-c', `sh -c 'trap "sleep 0.7; exit 0" TERM; while :; do sleep 0.1; done' & echo "left=$!"; wait`],
      env: {},
      cwd: process.cwd(),
    });
    const leftBehind = () => lines.flatMap((line) => /left=(\d+)/.exec(line)?.[1] ?? []).map(Number);
    started.push(leftBehind);
    await expect.poll(() => leftBehind().length, { timeout: 10_000 }).toBe(1);

    await supervisor.stopAll();

    expect(leftBehind().filter(alive)).toEqual([]);
  });

  it('ends what a process left in its group when the process exits by itself, and starts it again', async () => {
    const { supervisor, lines, leftBehind } = superviseShell('crashing', 'sleep 0.5; exit 3');
    await expect.poll(() => leftBehind().length, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);

    await supervisor.stopAll();

    expect(lines).toContain('[crashing] exited (3); restarting');
    expect(supervisor.status()[0]?.restarts).toBeGreaterThanOrEqual(1);
    await expect.poll(() => leftBehind().some(alive), { timeout: 3000 }).toBe(false);
  });

  it('kills the whole group of a process that outlives its grace', async () => {
    const { supervisor, leftBehind } = superviseShell('stubborn', 'trap "" TERM; while :; do sleep 0.1; done');
    await expect.poll(() => leftBehind().length, { timeout: 10_000 }).toBe(1);

    await supervisor.stop('stubborn', 300);
    await supervisor.stopAll();

    await expect.poll(() => leftBehind().some(alive), { timeout: 3000 }).toBe(false);
    expect(supervisor.status()).toEqual([]);
  });
});
