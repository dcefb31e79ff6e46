import type { ChildProcess } from 'node:child_process';

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
