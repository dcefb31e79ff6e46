/** The clock is injected everywhere so tests never wait for or mock time. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/**
 * ISO 8601 UTC with microseconds and `Z`, as the interface shows (interface: The prediction; `2026-11-21T18:27:49.123000Z`).
 * The clock has millisecond resolution, so the last three digits are zero.
 */
export const formatTimestamp = (epochMs: number): string => {
  const iso = new Date(epochMs).toISOString(); // 2026-11-21T18:27:49.123Z
  return `${iso.slice(0, -1)}000Z`;
};

export const parseTimestamp = (timestamp: string): number => Date.parse(timestamp);
