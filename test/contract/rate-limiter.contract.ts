import { describe, expect, it } from 'vitest';
import type { RateLimiter } from '../../shared/ports/rate-limiter.ts';
import { T0 } from '../support/in-memory/clock.ts';

export type MakeRateLimiter = () => Promise<RateLimiter>;

/** What every RateLimiter does, whatever counts the requests. */
export const describeRateLimiterContract = (name: string, make: MakeRateLimiter) =>
  describe(`${name}: the rate limiter`, () => {
    it('allows `limit` requests in a one-second window, then says when to come back', async () => {
      const limiter = await make();
      const at = T0 + 250;
      const bucket = [{ key: `TOKEN#${Math.random()}`, limit: 2 }];
      expect(await limiter.take(bucket, at)).toEqual({ allowed: true, retryAfterSeconds: 1 });
      expect(await limiter.take(bucket, at + 100)).toMatchObject({ allowed: true });
      expect(await limiter.take(bucket, at + 200)).toEqual({ allowed: false, retryAfterSeconds: 1 });
      expect(await limiter.take(bucket, T0 + 1000)).toMatchObject({ allowed: true });
    });

    it('counts a request in a later window only if the earlier ones allowed it', async () => {
      const limiter = await make();
      const account = { key: `ACCOUNT#${Math.random()}`, limit: 2 };
      const token = { key: `TOKEN#${Math.random()}`, limit: 1 };
      expect(await limiter.take([token, account], T0)).toMatchObject({ allowed: true });
      expect(await limiter.take([token, account], T0)).toMatchObject({ allowed: false });
      // The account's window counted one request, not two: another token still gets in, once.
      const other = { key: `TOKEN#${Math.random()}`, limit: 5 };
      expect(await limiter.take([other, account], T0)).toMatchObject({ allowed: true });
      expect(await limiter.take([other, account], T0)).toMatchObject({ allowed: false });
    });
  });
