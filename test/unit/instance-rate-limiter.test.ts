import { describe, expect, it } from 'vitest';
import { instanceRateLimiter } from '../../shared/adapters/instance-rate-limiter.ts';
import { permitsToTake } from '../../shared/domain/rate-windows.ts';
import { T0 } from '../support/in-memory/clock.ts';
import { inMemoryRateWindows } from '../support/in-memory/rate-limiter.ts';

const scope = 'ACCOUNT#a';
const limited = (limit: number) => [
  { key: 'TOKEN#t', limit },
  { key: 'ACCOUNT', limit: limit * 2 },
];

/** `count` requests spread over the second that starts at `startMs`, one after another. */
const oneByOne = async (
  limiter: ReturnType<typeof instanceRateLimiter>,
  startMs: number,
  count: number,
  limit = 1000,
) => {
  const decisions = [];
  for (let i = 0; i < count; i++)
    decisions.push(await limiter.take(scope, limited(limit), startMs + Math.floor((i * 1000) / count)));
  return decisions;
};

describe('how many requests an instance counts at once (permitsToTake)', () => {
  it('takes a quarter of what it was asked, at most a sixteenth of the limit, at least one', () => {
    expect(permitsToTake(0, 100)).toBe(1);
    expect(permitsToTake(3, 100)).toBe(1);
    expect(permitsToTake(40, 1000)).toBe(10);
    expect(permitsToTake(400, 100)).toBe(6);
    expect(permitsToTake(400, 10)).toBe(1);
    expect(permitsToTake(400, 0.5)).toBe(1);
  });
});

describe("an API instance's rate limiter", () => {
  it('counts requests one at a time while it is asked few, as every request was counted before', async () => {
    const windows = inMemoryRateWindows();
    const limiter = instanceRateLimiter(windows);
    for (let second = 0; second < 3; second++) await oneByOne(limiter, T0 + second * 1000, 3);
    expect(windows.reservations()).toBe(9);
  });

  it('counts a busy second in a few writes, letting every request through', async () => {
    const windows = inMemoryRateWindows();
    const limiter = instanceRateLimiter(windows);
    const first = await oneByOne(limiter, T0, 100);
    const firstWrites = windows.reservations();
    const second = await oneByOne(limiter, T0 + 1000, 100);
    expect([...first, ...second].every((decision) => decision.allowed)).toBe(true);
    // From the second window on, 25 at a time (a quarter of the 100 asked before): 4 writes.
    expect(windows.reservations() - firstWrites).toBe(4);
    expect(firstWrites).toBeLessThan(40);
  });

  it('never lets more than the limit through, and refuses the rest of the second without a write', async () => {
    const windows = inMemoryRateWindows();
    const limiter = instanceRateLimiter(windows);
    await oneByOne(limiter, T0, 200, 160);
    const before = windows.reservations();
    const decisions = await oneByOne(limiter, T0 + 1000, 400, 160);
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(160);
    // 16 writes of 10, one that finds no room for 10 and one that finds none for 1; then none.
    expect(windows.reservations() - before).toBe(18);
    expect(decisions.slice(160).every((decision) => !decision.allowed && decision.retryAfterSeconds === 1)).toBe(true);
  });

  it('has requests that arrive together wait for one write rather than each making its own', async () => {
    const windows = inMemoryRateWindows();
    const limiter = instanceRateLimiter(windows);
    await oneByOne(limiter, T0, 100);
    const before = windows.reservations();
    const decisions = await Promise.all(
      Array.from({ length: 20 }, () => limiter.take(scope, limited(1000), T0 + 1000)),
    );
    expect(decisions.every((decision) => decision.allowed)).toBe(true);
    expect(windows.reservations() - before).toBe(1);
  });

  it("counts a request stamped in a window already left on its own, not from the current window's", async () => {
    const windows = inMemoryRateWindows();
    const limiter = instanceRateLimiter(windows);
    await oneByOne(limiter, T0, 100);
    await limiter.take(scope, limited(1000), T0 + 1000);
    const before = windows.reservations();
    expect(await limiter.take(scope, limited(1000), T0 + 999)).toMatchObject({ allowed: true });
    expect(windows.reservations() - before).toBe(1);
  });

  it('holds what it counted for one set of limits apart from another (a token whose rate changed)', async () => {
    const windows = inMemoryRateWindows();
    const limiter = instanceRateLimiter(windows);
    await oneByOne(limiter, T0, 100, 1000);
    await limiter.take(scope, limited(1000), T0 + 1000);
    // The unused permits of the 1000-a-second limit do not let a request past a limit of 1.
    expect(await limiter.take(scope, limited(1), T0 + 1001)).toMatchObject({ allowed: false });
  });
});
