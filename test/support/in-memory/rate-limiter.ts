import { rateWindowAt } from '../../../shared/adapters/rate-limiter.ts';
import type { RateLimiter } from '../../../shared/ports/rate-limiter.ts';
import { answer } from './answer.ts';

/** Fixed one-second windows counted in memory, as the DynamoDB adapter counts them in the table. */
export const inMemoryRateLimiter = (): RateLimiter => {
  const counts = new Map<string, number>();
  return {
    take: (buckets, nowMs) =>
      answer(() => {
        const { window, retryAfterSeconds } = rateWindowAt(nowMs);
        for (const { key, limit } of buckets) {
          const counted = counts.get(`${key}#${window}`) ?? 0;
          if (counted >= limit) return { allowed: false, retryAfterSeconds };
          counts.set(`${key}#${window}`, counted + 1);
        }
        return { allowed: true, retryAfterSeconds };
      }),
  };
};
