import { describe, expect, it } from 'vitest';
import { instanceRateLimiter } from '../../shared/adapters/instance-rate-limiter.ts';
import type { RateWindows } from '../../shared/ports/rate-limiter.ts';
import { T0 } from '../support/in-memory/clock.ts';

export type MakeRateWindows = () => Promise<RateWindows>;

const freshScope = () => `ACCOUNT#${Math.random()}`;

/** What every RateWindows does, whatever counts the requests, and the rate limiter an API instance builds on them. */
export const describeRateLimiterContract = (name: string, make: MakeRateWindows) =>
  describe(`${name}: the rate windows`, () => {
    it('counts several requests at once only when every counter has room for all of them', async () => {
      const windows = await make();
      const scope = freshScope();
      const token = { key: 'TOKEN#t', limit: 5 };
      const account = { key: 'ACCOUNT', limit: 10 };
      expect(await windows.reserve(scope, [token, account], 3, T0)).toBe(true);
      // 3 of 5 counted: 3 more do not fit, and none of them is counted.
      expect(await windows.reserve(scope, [token, account], 3, T0 + 10)).toBe(false);
      expect(await windows.reserve(scope, [token, account], 2, T0 + 20)).toBe(true);
      expect(await windows.reserve(scope, [token, account], 1, T0 + 30)).toBe(false);
      // The account counted 5: another token fits 5 more, not 6.
      const other = { key: 'TOKEN#u', limit: 100 };
      expect(await windows.reserve(scope, [other, account], 6, T0 + 40)).toBe(false);
      expect(await windows.reserve(scope, [other, account], 5, T0 + 50)).toBe(true);
      // The next window starts from nothing.
      expect(await windows.reserve(scope, [token, account], 5, T0 + 1000)).toBe(true);
    });

    it('lets a limit under one through once a window, and never more than a limit at once', async () => {
      const windows = await make();
      const scope = freshScope();
      expect(await windows.reserve(scope, [{ key: 'TOKEN#t', limit: 2 }], 3, T0)).toBe(false);
      expect(await windows.reserve(scope, [{ key: 'TOKEN#h', limit: 0.5 }], 1, T0)).toBe(true);
      expect(await windows.reserve(scope, [{ key: 'TOKEN#h', limit: 0.5 }], 1, T0)).toBe(false);
    });

    describe('counted by one API instance', () => {
      it('allows `limit` requests in a one-second window, then says when to come back', async () => {
        const limiter = instanceRateLimiter(await make());
        const at = T0 + 250;
        const scope = freshScope();
        const bucket = [{ key: 'TOKEN#t', limit: 2 }];
        expect(await limiter.take(scope, bucket, at)).toEqual({ allowed: true, retryAfterSeconds: 1 });
        expect(await limiter.take(scope, bucket, at + 100)).toMatchObject({ allowed: true });
        expect(await limiter.take(scope, bucket, at + 200)).toEqual({ allowed: false, retryAfterSeconds: 1 });
        expect(await limiter.take(scope, bucket, T0 + 1000)).toMatchObject({ allowed: true });
        // Another scope counts on its own.
        expect(await limiter.take(freshScope(), bucket, at + 200)).toMatchObject({ allowed: true });
      });

      it('counts a request on every counter or on none', async () => {
        const limiter = instanceRateLimiter(await make());
        const scope = freshScope();
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

      it('lets exactly the limit through when a busy instance counts many at once, and two instances share it', async () => {
        const windows = await make();
        const [one, two] = [instanceRateLimiter(windows), instanceRateLimiter(windows)];
        const scope = freshScope();
        const bucket = [{ key: 'TOKEN#t', limit: 160 }];
        // A second of 100 requests teaches the instance to count them ten at a time.
        const first = await Promise.all(Array.from({ length: 100 }, (_, i) => one.take(scope, bucket, T0 + i)));
        expect(first.every((decision) => decision.allowed)).toBe(true);
        const next = T0 + 1000;
        const decisions = await Promise.all(
          Array.from({ length: 200 }, (_, i) => (i % 4 === 0 ? two : one).take(scope, bucket, next + i)),
        );
        const allowed = decisions.filter((decision) => decision.allowed).length;
        expect(allowed).toBeLessThanOrEqual(160);
        // What the busy one counted and did not use is at most a sixteenth of the limit.
        expect(allowed).toBeGreaterThanOrEqual(160 - 10);
      });
    });
  });
