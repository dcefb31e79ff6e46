import { availableParallelism } from 'node:os';
import pLimit from 'p-limit';

export interface ReadTurns {
  /**
   * Runs `read` when its turn comes: at most `atOnce` at a time, in arrival order. A read whose
   * caller has left by its turn (`wanted` answers false) is not run.
   */
  take(wanted: () => boolean, read: () => Promise<void>): Promise<void>;
  /** Reads waiting for their turn now. */
  readonly waiting: number;
}

/**
 * Reads take turns so that polling never starves the work (architecture: Local runtime). On one
 * machine the API's handlers, the emulators, the workflow and the workers share its cores: a
 * client that polls as fast as it is answered would take as much of them as it was given, and the
 * predictions it polls for would run slower the more it polled. At most as many reads run at once
 * as the machine has cores; writes (a create, a cancel) and the work never wait for them.
 */
export const readTurns = (atOnce: number = availableParallelism()): ReadTurns => {
  const limit = pLimit(Math.max(1, atOnce));
  return {
    take: (wanted, read) => limit(() => (wanted() ? read() : undefined)),
    get waiting() {
      return limit.pendingCount;
    },
  };
};
