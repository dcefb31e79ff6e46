import type { ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { statFieldsOf } from '../cli/local-runtime.ts';

/**
 * Sends `signal` to every process of the group a child started with `detached: true` leads: the
 * child and whatever it started that stayed in its group. Nothing happens once the group is empty.
 */
export const signalGroup = (child: ChildProcess, signal: NodeJS.Signals): void => {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal);
  } catch {
    // Nothing of the group is left.
  }
};

const HAS_PROC = existsSync('/proc/self/stat');

/** Whether a process of the group still runs, per /proc: one that has ended but waits to be reaped (Z) does not. */
const groupRunsPerProc = (pgid: number): boolean =>
  readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .some((pid) => {
      try {
        const [state, , group] = statFieldsOf(pid);
        return group === String(pgid) && state !== 'Z' && state !== 'X';
      } catch {
        return false;
      }
    });

/**
 * Whether any process of the group still runs. What the leader started is reparented to init once
 * the leader has gone, and init may take a second or two to reap it: where there is /proc, such a
 * zombie counts as gone; elsewhere the group counts until it is reaped.
 */
export const groupRuns = (pgid: number): boolean => {
  if (HAS_PROC) return groupRunsPerProc(pgid);
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
};

/** How long a group's last processes are given to go after SIGKILL before the stop goes on. */
const REAP_MS = 5000;

/**
 * Resolves once nothing of the group a child led is left. Its leader having exited, what it
 * started in its group was told to end (SIGTERM) and may still be ending: a stop that reports
 * "stopped" before then leaves it running for a moment, a model server's worker still holding its
 * port. SIGKILL to the group after `graceMs`.
 */
export const groupEnded = async (child: ChildProcess, graceMs: number): Promise<void> => {
  const pgid = child.pid;
  if (pgid === undefined) return;
  const killAt = Date.now() + graceMs;
  const giveUpAt = killAt + REAP_MS;
  let killed = false;
  while (groupRuns(pgid) && Date.now() < giveUpAt) {
    if (!killed && Date.now() >= killAt) {
      signalGroup(child, 'SIGKILL');
      killed = true;
    }
    await sleep(20);
  }
};
