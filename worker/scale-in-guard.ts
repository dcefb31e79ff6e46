import type { Clock } from '../shared/domain/clock.ts';
import { MAX_PROTECTION_MINUTES, type TaskProtection } from '../shared/ports/task-protection.ts';

/** Past its run limit, what a job may still take: the model's answer, the result's writes. */
const JOB_MARGIN_MINUTES = 2;
/** Each protection also covers the jobs that start this long after it: a busy worker renews it at most this often. */
const RENEW_EVERY_MINUTES = 5;

export interface ScaleInGuard {
  /** Runs a claimed job with the task protected; the protection's calls neither delay nor fail it. */
  protecting<T>(job: () => Promise<T>): Promise<T>;
  /** A job was claimed: the task is kept from scale-in for as long as it may take. Resolves once the agent was asked; never rejects. */
  jobStarted(): Promise<void>;
  /** A job ended: with none left running, the task may be scaled in again. Resolves once the agent was asked; never rejects. */
  jobEnded(): Promise<void>;
}

export interface ScaleInGuardDeps {
  readonly protection: TaskProtection;
  /** The model's run limit: the longest a job runs. */
  readonly runSeconds: number;
  readonly clock: Clock;
  readonly warn: (message: string, fields: Record<string, unknown>) => void;
}

/**
 * Keeps the worker's task protected from scale-in while it runs anything: protected when the
 * first job of an idle worker is claimed, renewed when a later job would outlast the protection,
 * released when the last running job ends. The calls are made in order, one at a time; one that
 * fails is a warning — a job never waits on it or stops for it, and the next job tries again.
 */
export const scaleInGuard = (deps: ScaleInGuardDeps): ScaleInGuard => {
  const jobMinutes = Math.ceil(deps.runSeconds / 60) + JOB_MARGIN_MINUTES;
  const minutes = Math.min(MAX_PROTECTION_MINUTES, jobMinutes + RENEW_EVERY_MINUTES);
  let running = 0;
  /** When the protection asked for last ends; null when none is (believed) in force. */
  let protectedUntilMs: number | null = null;
  let calls: Promise<void> = Promise.resolve();
  const inOrder = (what: string, call: () => Promise<void>): Promise<void> => {
    calls = calls
      .then(call)
      .catch((error: unknown) =>
        deps.warn(`task scale-in protection: ${what} failed`, { error: String(error), running }),
      );
    return calls;
  };
  const guard: ScaleInGuard = {
    async protecting(job) {
      void guard.jobStarted();
      try {
        return await job();
      } finally {
        void guard.jobEnded();
      }
    },
    jobStarted() {
      running += 1;
      const nowMs = deps.clock.now();
      const neededUntilMs = nowMs + Math.min(jobMinutes, minutes) * 60_000;
      if (protectedUntilMs !== null && neededUntilMs <= protectedUntilMs) return calls;
      protectedUntilMs = nowMs + minutes * 60_000;
      return inOrder('protecting the task', async () => {
        try {
          await deps.protection.protect(minutes);
        } catch (error) {
          protectedUntilMs = null;
          throw error;
        }
      });
    },
    jobEnded() {
      running = Math.max(0, running - 1);
      if (running > 0) return calls;
      protectedUntilMs = null;
      return inOrder('releasing the task', async () => {
        // A job claimed while the calls before this one went on keeps the protection.
        if (running === 0) await deps.protection.release();
      });
    },
  };
  return guard;
};
