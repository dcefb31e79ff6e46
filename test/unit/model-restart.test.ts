import { describe, expect, it } from 'vitest';
import { restartedSince } from '../../worker/model-server.ts';

describe('a model server restarted since a run was put', () => {
  // coglet's health check gives its setup's start to the nanosecond, with an offset.
  const putAt = Date.parse('2026-12-07T23:23:40.000Z');

  it('is one whose setup began after the run was put', () => {
    expect(restartedSince('2026-12-07T23:23:40.001000000+00:00', putAt)).toBe(true);
    expect(restartedSince('2026-12-08T02:23:41.000000000+03:00', putAt)).toBe(true);
  });

  it('is not the one that took the run, whose setup began before, even one started since the last run', () => {
    expect(restartedSince('2026-12-07T23:23:36.838205851+00:00', putAt)).toBe(false);
    expect(restartedSince('2026-12-07T23:23:40.000000000+00:00', putAt)).toBe(false);
    expect(restartedSince('2026-12-08T02:23:39.999000000+03:00', putAt)).toBe(false);
  });

  it('cannot be told where the server does not say when its setup began', () => {
    expect(restartedSince(null, putAt)).toBe(false);
    expect(restartedSince('soon', putAt)).toBe(false);
  });
});
