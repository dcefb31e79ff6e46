import { describe, expect, it } from 'vitest';
import { alive } from '../../bench/processes.ts';
import { startLifeline } from '../../local/lifeline.ts';

describe('lifeline', () => {
  it('has its watcher gone once its close resolves, so a stop leaves no process of it behind', async () => {
    const lifeline = startLifeline(1);
    const pid = lifeline.pid;
    expect(pid).not.toBeNull();
    await expect.poll(() => alive(pid ?? 0)).toBe(true);

    await lifeline.close();

    expect(alive(pid ?? 0)).toBe(false);
  });
});
