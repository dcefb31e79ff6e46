import type { Clock } from '../../../shared/domain/clock.ts';

/** A clock that moves only when a test moves it. */
export interface FakeClock extends Clock {
  advance(ms: number): void;
  set(epochMs: number): void;
}

/** 2026-11-25T12:00:00Z: a fixed start, so timestamps and months in tests are known. */
export const T0 = Date.UTC(2026, 10, 25, 12, 0, 0, 0);

export const fakeClock = (startMs: number = T0): FakeClock => {
  let nowMs = startMs;
  return {
    now: () => nowMs,
    advance: (ms) => {
      if (ms < 0) throw new Error('a clock does not go back');
      nowMs += ms;
    },
    set: (epochMs) => {
      nowMs = epochMs;
    },
  };
};
