import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { call, createOtherAccount } from '../support/api.ts';

describe('request rate (429)', () => {
  it('refuses requests past the configured rate with Retry-After, and clears after the window', async () => {
    const token = await createOtherAccount({ balanceKopecks: 1_000, ratePerSecond: 10 });
    // Start the burst early in a one-second window, so that it falls inside one window.
    while (Date.now() % 1000 > 50) await sleep(5);

    const responses = await Promise.all(Array.from({ length: 30 }, () => call('account', { token })));

    expect(
      responses.every((r) => r.status === 200 || r.status === 429),
      JSON.stringify(responses.map((r) => [r.status, r.json])),
    ).toBe(true);
    const allowed = responses.filter((r) => r.status === 200).length;
    expect(allowed).toBeGreaterThanOrEqual(9);
    expect(allowed).toBeLessThanOrEqual(11);
    const refused = responses.filter((r) => r.status === 429);
    expect(refused.length).toBe(30 - allowed);
    for (const response of refused) {
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(response.json).toMatchObject({ error: { code: 'rate_limited' } });
    }

    await sleep(1100);
    expect((await call('account', { token })).status).toBe(200);
  });

  it('counts each account on its own', async () => {
    const busy = await createOtherAccount({ balanceKopecks: 1_000, ratePerSecond: 2 });
    const calm = await createOtherAccount({ balanceKopecks: 1_000, ratePerSecond: 2 });
    await Promise.all(Array.from({ length: 6 }, () => call('account', { token: busy })));
    expect((await call('account', { token: calm })).status).toBe(200);
  });
});
