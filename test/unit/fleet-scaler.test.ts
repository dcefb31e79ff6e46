import { describe, expect, it } from 'vitest';
import { FleetScaler } from '../../local/fleet-scaler.ts';
import type { FleetBounds } from '../../shared/domain/deployment-bounds.ts';
import { answer } from '../support/in-memory/answer.ts';

/** A scaler over instances that start and stop at once, its backlog and clock set by the test. */
const setUp = (bounds: FleetBounds) => {
  let backlog = 0;
  let now = 0;
  const running = new Set<number>();
  const events: string[] = [];
  const kept: FleetBounds[] = [];
  const scaler = new FleetScaler({
    cluster: 'Stack-acme-echo',
    bounds,
    backlogPerTask: 5,
    instances: {
      start: (instance) =>
        answer(() => {
          running.add(instance);
          events.push(`start ${instance}`);
        }),
      running: () => running.size,
      stop: (instance) =>
        answer(() => {
          running.delete(instance);
          events.push(`stop ${instance}`);
        }),
    },
    backlog: () => answer(() => backlog),
    scaleInAfterMs: 60_000,
    everyMs: 3_600_000,
    onResize: (to) => kept.push(to),
    log: () => undefined,
    now: () => now,
  });
  // What the timer does every second, called by hand.
  const tick = () => (scaler as unknown as { reconcile: () => Promise<void> }).reconcile();
  return {
    scaler,
    tick,
    events,
    kept,
    running: () => [...running].sort(),
    setBacklog: (jobs: number) => {
      backlog = jobs;
    },
    later: (ms: number) => {
      now += ms;
    },
  };
};

describe("a local fleet's scaler", () => {
  it('keeps min instances warm with nothing to do, and no model server at all with min 0', async () => {
    const warm = setUp({ minInstances: 1, maxInstances: 3 });
    await warm.scaler.start();
    warm.scaler.stop();
    expect(warm.running()).toEqual([1]);
    const cold = setUp({ minInstances: 0, maxInstances: 3 });
    await cold.scaler.start();
    cold.scaler.stop();
    expect(cold.running()).toEqual([]);
    expect(cold.scaler.state()).toEqual({ minInstances: 0, maxInstances: 3, desiredInstances: 0, runningInstances: 0 });
  });

  it('starts an instance for a job that waits, more per backlogPerTask jobs, never past max', async () => {
    const fleet = setUp({ minInstances: 0, maxInstances: 2 });
    await fleet.scaler.start();
    fleet.scaler.stop();
    fleet.setBacklog(1);
    await fleet.tick();
    expect(fleet.running()).toEqual([1]);
    fleet.setBacklog(6);
    await fleet.tick();
    expect(fleet.running()).toEqual([1, 2]);
    fleet.setBacklog(50);
    await fleet.tick();
    expect(fleet.running()).toEqual([1, 2]);
    expect(fleet.scaler.state().desiredInstances).toBe(2);
  });

  it('stops instances only after the backlog stayed low for the scale-in time, down to min', async () => {
    const fleet = setUp({ minInstances: 0, maxInstances: 2 });
    await fleet.scaler.start();
    fleet.scaler.stop();
    fleet.setBacklog(10);
    await fleet.tick();
    fleet.setBacklog(0);
    await fleet.tick();
    fleet.later(59_000);
    await fleet.tick();
    expect(fleet.running()).toEqual([1, 2]);
    // A job in the meantime starts the wait again.
    fleet.setBacklog(7);
    await fleet.tick();
    fleet.setBacklog(0);
    fleet.later(2_000);
    await fleet.tick();
    expect(fleet.running()).toEqual([1, 2]);
    fleet.later(60_000);
    await fleet.tick();
    expect(fleet.running()).toEqual([]);
    expect(fleet.events).toEqual(['start 1', 'start 2', 'stop 2', 'stop 1']);
  });

  it('takes new bounds at once: a raised min starts instances, a max below what runs stops them, and keeps them', async () => {
    const fleet = setUp({ minInstances: 0, maxInstances: 4 });
    await fleet.scaler.start();
    fleet.scaler.stop();
    fleet.scaler.resize({ minInstances: 3, maxInstances: 4 });
    await fleet.tick();
    expect(fleet.running()).toEqual([1, 2, 3]);
    fleet.scaler.resize({ minInstances: 1, maxInstances: 1 });
    await fleet.tick();
    expect(fleet.running()).toEqual([1]);
    // A lower min alone waits for the backlog to stay low, as on AWS.
    fleet.scaler.resize({ minInstances: 0, maxInstances: 1 });
    await fleet.tick();
    expect(fleet.running()).toEqual([1]);
    fleet.later(60_000);
    await fleet.tick();
    expect(fleet.running()).toEqual([]);
    expect(fleet.kept).toEqual([
      { minInstances: 3, maxInstances: 4 },
      { minInstances: 1, maxInstances: 1 },
      { minInstances: 0, maxInstances: 1 },
    ]);
  });

  it('with max 0 runs nothing, whatever waits', async () => {
    const fleet = setUp({ minInstances: 0, maxInstances: 0 });
    await fleet.scaler.start();
    fleet.scaler.stop();
    fleet.setBacklog(30);
    await fleet.tick();
    expect(fleet.running()).toEqual([]);
  });
});
