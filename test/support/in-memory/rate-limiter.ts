import { rateWindowAt } from '../../../shared/adapters/rate-limiter.ts';
import type { RateLimiter } from '../../../shared/ports/rate-limiter.ts';
import { answer } from './answer.ts';

/** Fixed one-second windows counted in memory, as the DynamoDB adapter counts them in the table. */
export const inMemoryRateLimiter = (): RateLimiter => {
  const counts = new Map<string, number>();
  return {
    take: (scope, counters, nowMs) =>
      answer(() => {
        const { window, retryAfterSeconds } = rateWindowAt(nowMs);
        const keyOf = (key: string) => `${scope}#${window}#${key}`;
        if (counters.some(({ key, limit }) => (counts.get(keyOf(key)) ?? 0) >= limit))
          return { allowed: false, retryAfterSeconds };
        for (const { key } of counters) counts.set(keyOf(key), (counts.get(keyOf(key)) ?? 0) + 1);
        return { allowed: true, retryAfterSeconds };
      }),
  };
};
