import type { Clock } from '../../../shared/domain/clock.ts';

/** A clock that moves only when a test moves it; a sleep on it ends when the clock reaches its end. */
export interface FakeClock extends Clock {
  advance(ms: number): void;
  set(epochMs: number): void;
  /** Resolves once the clock has been moved `ms` on, or at once when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** 2026-11-25T12:00:00Z: a fixed start, so timestamps and months in tests are known. */
export const T0 = Date.UTC(2026, 10, 25, 12, 0, 0, 0);

export const fakeClock = (startMs: number = T0): FakeClock => {
  let nowMs = startMs;
  const sleepers = new Set<{ readonly untilMs: number; readonly wake: () => void }>();
  const wakeDue = () => {
    for (const sleeper of sleepers) if (sleeper.untilMs <= nowMs) sleeper.wake();
  };
  return {
    now: () => nowMs,
    advance: (ms) => {
      if (ms < 0) throw new Error('a clock does not go back');
      nowMs += ms;
      wakeDue();
    },
    set: (epochMs) => {
      nowMs = epochMs;
      wakeDue();
    },
    sleep: (ms, signal) =>
      new Promise<void>((resolve) => {
        if (ms <= 0 || signal?.aborted) return resolve();
        const sleeper = {
          untilMs: nowMs + ms,
          wake: () => {
            sleepers.delete(sleeper);
            signal?.removeEventListener('abort', sleeper.wake);
            resolve();
          },
        };
        sleepers.add(sleeper);
        signal?.addEventListener('abort', sleeper.wake, { once: true });
      }),
  };
};
