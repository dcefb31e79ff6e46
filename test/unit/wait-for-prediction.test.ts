import { describe, expect, it, vi } from 'vitest';
import type { Prediction } from '../../shared/domain/prediction.ts';
import { endPrediction, stoppingExecutions } from '../../shared/use-cases/end-prediction.ts';
import { SAFETY_READ_MS, waitForPrediction, waiterAddress } from '../../shared/use-cases/wait-for-prediction.ts';
import { createEchoPrediction } from '../support/in-memory/echo-prediction.ts';
import { inMemoryService } from '../support/in-memory/service.ts';

/** A turn of the event loop: the wait runs as far as it can before the clock moves. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

/** A prediction created by a request that waits for it, as a synchronous create makes it, and that wait begun. */
const waitedFor = async (timeoutMs = 30_000, callerGone?: AbortSignal) => {
  const service = inMemoryService();
  const waiter = await service.endingInbox.address();
  const { id } = await createEchoPrediction(service, { waiter });
  const initial = await service.store.get(id);
  if (!initial) throw new Error('not created');
  const startedMs = service.clock.now();
  let answer: Prediction | null = null;
  const waiting = waitForPrediction(service, initial, timeoutMs, callerGone).then((prediction) => {
    answer = prediction;
    return prediction;
  });
  const cancel = () =>
    endPrediction(stoppingExecutions(service, 'canceled by its owner'), id, {
      type: 'canceled',
      atMs: service.clock.now(),
      by: 'api',
    });
  /** Moves the clock on `stepMs` at a time until the wait answers; how long that took. */
  const runUntilAnswered = async (stepMs: number): Promise<number> => {
    await turn();
    while (answer === null) {
      service.clock.advance(stepMs);
      await turn();
    }
    return service.clock.now() - startedMs;
  };
  return { service, id, waiter, waiting, cancel, runUntilAnswered, elapsedMs: () => service.clock.now() - startedMs };
};

describe('a synchronous wait', () => {
  it('answers as soon as the notice of the end comes, with no time passed, with the prediction it carried', async () => {
    const { waiting, cancel, elapsedMs, service, id } = await waitedFor();
    await turn();
    await cancel();
    const reads = vi.spyOn(service.store, 'get');
    expect(await waiting).toMatchObject({ status: 'canceled' });
    // As it ended: what it still owed then (settled since) is the service's own, shown in no answer.
    const told = await waiting;
    expect(await service.store.get(id)).toEqual({ ...told, effects: [], sweepAtMs: null });
    expect(reads).toHaveBeenCalledTimes(1); // the comparison's own read: the wait read nothing
    expect(elapsedMs()).toBe(0);
    expect(service.endings.lost).toEqual([]);
  });

  it('answers at its next safety read when the notice is lost: latency, never a wrong answer', async () => {
    const { service, id, waiter, cancel, runUntilAnswered, waiting } = await waitedFor();
    service.endings.vanish(waiter);
    await turn();
    await cancel();
    expect(service.endings.lost).toEqual([{ address: waiter, id }]);
    expect(await runUntilAnswered(100)).toBe(SAFETY_READ_MS);
    expect(await waiting).toMatchObject({ status: 'canceled' });
  });

  it('answers with the prediction as it stands at the deadline, which is not a whole number of safety reads away', async () => {
    const { runUntilAnswered, waiting, id } = await waitedFor(2500);
    expect(await runUntilAnswered(500)).toBe(2500);
    expect(await waiting).toMatchObject({ id, status: 'starting' });
  });

  it('answers at once, with the prediction as it stands, when the caller has gone', async () => {
    const gone = new AbortController();
    const { waiting, elapsedMs } = await waitedFor(30_000, gone.signal);
    await turn();
    gone.abort();
    expect(await waiting).toMatchObject({ status: 'starting' });
    expect(elapsedMs()).toBe(0);
  });

  it('goes on without an inbox when none can be made, and says why', async () => {
    const reported: unknown[] = [];
    const broken = {
      address: () => Promise.reject(new Error('CreateQueue refused')),
      waitFor: () => Promise.resolve(null),
    };
    expect(await waiterAddress(broken, (error) => reported.push(error))).toBeNull();
    expect(String(reported[0])).toMatch(/CreateQueue refused/);
    const { service } = await waitedFor();
    expect(await waiterAddress(service.endingInbox, () => undefined)).toMatch(/^memory:\/\/waiter-/);
  });
});
