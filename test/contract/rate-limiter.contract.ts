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
      const scope = `ACCOUNT#${Math.random()}`;
      const bucket = [{ key: 'TOKEN#t', limit: 2 }];
      expect(await limiter.take(scope, bucket, at)).toEqual({ allowed: true, retryAfterSeconds: 1 });
      expect(await limiter.take(scope, bucket, at + 100)).toMatchObject({ allowed: true });
      expect(await limiter.take(scope, bucket, at + 200)).toEqual({ allowed: false, retryAfterSeconds: 1 });
      expect(await limiter.take(scope, bucket, T0 + 1000)).toMatchObject({ allowed: true });
      // Another scope counts on its own.
      expect(await limiter.take(`ACCOUNT#${Math.random()}`, bucket, at + 200)).toMatchObject({ allowed: true });
    });

    it('counts a request on every counter or on none', async () => {
      const limiter = await make();
      const scope = `ACCOUNT#${Math.random()}`;
      const account = { key: 'ACCOUNT', limit: 2 };
      const token = { key: 'TOKEN#a', limit: 1 };
      expect(await limiter.take(scope, [token, account], T0)).toMatchObject({ allowed: true });
      expect(await limiter.take(scope, [token, account], T0)).toMatchObject({ allowed: false });
      // The account counted one request, not two: another token still gets in, once.
      const other = { key: 'TOKEN#b', limit: 5 };
      expect(await limiter.take(scope, [other, account], T0)).toMatchObject({ allowed: true });
      expect(await limiter.take(scope, [other, account], T0)).toMatchObject({ allowed: false });
      // Refused by the account, the token did not count it either.
      expect(await limiter.take(scope, [{ key: 'TOKEN#b', limit: 2 }], T0)).toMatchObject({ allowed: true });
    });
  });
