/**
 * A closed-loop load: `concurrency` clients, each starting its next iteration when the last one
 * ends, until the time is up. What an iteration measures is up to its caller.
 */
export interface LoadResult<T> {
  readonly concurrency: number;
  readonly seconds: number;
  readonly results: readonly T[];
  /** Completed iterations per second. */
  readonly perSecond: number;
}

export const runClosedLoop = async <T>(
  concurrency: number,
  durationMs: number,
  iteration: () => Promise<T>,
): Promise<LoadResult<T>> => {
  const results: T[] = [];
  const started = performance.now();
  const deadline = started + durationMs;
  const client = async () => {
    while (performance.now() < deadline) results.push(await iteration());
  };
  await Promise.all(Array.from({ length: concurrency }, client));
  const seconds = (performance.now() - started) / 1000;
  return { concurrency, seconds, results, perSecond: results.length / seconds };
};

/** Times one async call in milliseconds. */
export const timed = async <T>(call: () => Promise<T>): Promise<{ value: T; ms: number }> => {
  const started = performance.now();
  const value = await call();
  return { value, ms: performance.now() - started };
};
