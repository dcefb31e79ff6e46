import { describe, expect, it } from 'vitest';
import { ENDINGS } from '../../shared/domain/endings.ts';
import type { PredictionId } from '../../shared/domain/ids.ts';
import { EFFECTS_GRACE_MS } from '../../shared/domain/phases.ts';
import type { EndingExecution } from '../../shared/use-cases/end-prediction.ts';
import { phaseLimitsOf } from '../../shared/catalog/registry.ts';
import { applyEvent } from '../../shared/use-cases/apply-event.ts';
import { claimJob, type ClaimDeps } from '../../shared/use-cases/claim-job.ts';
import { createEchoPrediction, echo } from '../support/in-memory/echo-prediction.ts';
import { inMemoryService } from '../support/in-memory/service.ts';

const limits = phaseLimitsOf(echo);
const S = 1000;

/** A worker's view of a fresh in-memory service with one echo prediction, created and started. */
const withJob = async (options: { cancelAfterSeconds?: number } = {}) => {
  const service = inMemoryService();
  const { id, start, held } = await createEchoPrediction(service, options);
  expect(start).toEqual({ kind: 'running' });
  const stopped: EndingExecution[] = [];
  const logged: string[] = [];
  let lost = 0;
  let claims = 0;
  const deps: ClaimDeps = {
    store: service.store,
    catalog: service.catalog,
    clock: service.clock,
    ids: () => `claim-${++claims}`,
    limits,
    effects: {
      store: service.store,
      catalog: service.catalog,
      notifier: service.notifier,
      endingTeller: service.endingTeller,
      stopExecution: (prediction) => {
        stopped.push(prediction);
        return Promise.resolve();
      },
    },
    log: (message) => logged.push(message),
    countLost: () => lost++,
  };
  return { service, id, deps, stopped, logged, held, lost: () => lost };
};

const claimedBy = async (deps: ClaimDeps, id: PredictionId) => {
  const taken = await claimJob(deps, id);
  if (taken.kind !== 'run') throw new Error(`not claimed: ${JSON.stringify(taken)}`);
  return taken.prediction;
};

describe('claiming a job', () => {
  it('claims a queued prediction for this worker: processing, its first attempt, its own claim', async () => {
    const { service, id, deps } = await withJob();
    service.clock.advance(2 * S);
    const taken = await claimJob(deps, id);
    expect(taken).toMatchObject({
      kind: 'run',
      prediction: { id, status: 'processing', claim: 'claim-1', attempts: 1 },
    });
    expect(await service.store.statusOf(id)).toEqual({ status: 'processing', claim: 'claim-1' });
  });

  it('claims a waiting prediction in its one write, without reading it first', async () => {
    const { service, id, deps } = await withJob();
    let reads = 0;
    const store = { ...service.store, get: (read: PredictionId) => (reads++, service.store.get(read)) };
    const taken = await claimJob({ ...deps, store }, id);
    expect(taken).toMatchObject({ kind: 'run', prediction: { status: 'processing', claim: 'claim-1' } });
    expect(reads).toBe(0);
  });

  it('waits on a message that came back while its run is young: the queue may have delivered it twice', async () => {
    const { service, id, deps } = await withJob();
    await claimedBy(deps, id);
    service.clock.advance(S);
    expect(await claimJob(deps, id)).toEqual({ kind: 'later', afterMs: (limits.leaseSeconds * S) / 2 - S });
    expect(await service.store.statusOf(id)).toEqual({ status: 'processing', claim: 'claim-1' });
  });

  it('takes over a run whose worker was lost, counting it, and runs it again as a second attempt', async () => {
    const { service, id, deps, lost } = await withJob();
    await claimedBy(deps, id);
    service.clock.advance(limits.leaseSeconds * S);
    const again = await claimedBy(deps, id);
    expect(again).toMatchObject({ claim: 'claim-2', attempts: 2 });
    expect(lost()).toBe(1);
  });

  it('ends a prediction whose runs were lost as often as it may be, without running it; its hold is released', async () => {
    const { service, id, deps, held, stopped } = await withJob();
    for (let attempt = 0; attempt < limits.maxAttempts; attempt++) {
      await claimedBy(deps, id);
      service.clock.advance(limits.leaseSeconds * S);
      const lost = await applyEvent(service, id, {
        type: 'lost',
        atMs: service.clock.now(),
        claim: `claim-${attempt + 1}`,
      });
      expect(lost.ok).toBe(true);
    }
    expect(await claimJob(deps, id)).toEqual({ kind: 'done', reason: ENDINGS.workerLost(limits.maxAttempts) });
    expect(await service.store.get(id)).toMatchObject({ status: 'failed', error: ENDINGS.workerLost(2), effects: [] });
    expect(await held()).toBe(0);
    expect(stopped.map((prediction) => prediction.status)).toEqual(['failed']);
    expect(service.notifier.queued).toEqual([{ predictionId: id, status: 'failed' }]);
  });

  it("ends a prediction that waited past the model's queue limit, charging nothing", async () => {
    const { service, id, deps, held } = await withJob();
    service.clock.advance(limits.queueSeconds * S);
    expect(await claimJob(deps, id)).toEqual({ kind: 'done', reason: ENDINGS.noCapacity(limits.queueSeconds) });
    expect(await service.store.get(id)).toMatchObject({ status: 'failed', costKopecks: 0, runtimeMs: null });
    expect(await held()).toBe(0);
  });

  it('cancels a prediction whose deadline passed while it waited, with why', async () => {
    const { service, id, deps } = await withJob({ cancelAfterSeconds: 10 });
    service.clock.advance(10 * S);
    const taken = await claimJob(deps, id);
    const ended = await service.store.get(id);
    expect(ended).toMatchObject({ status: 'canceled', error: ENDINGS.deadline(ended?.deadlineAt ?? '') });
    expect(taken).toEqual({ kind: 'done', reason: ENDINGS.deadline(ended?.deadlineAt ?? '') });
  });

  it('leaves an ended prediction alone, but does what its ender still owes once the grace is over', async () => {
    const { service, id, deps, stopped } = await withJob();
    // A cancel that wrote its end and died before its side effects.
    const canceled = await applyEvent(service, id, { type: 'canceled', atMs: service.clock.now(), by: 'api' });
    expect(canceled.ok && canceled.value.after).toMatchObject({ status: 'canceled', effects: ['stop', 'notify'] });
    expect(await claimJob(deps, id)).toEqual({ kind: 'done', reason: 'the prediction has canceled' });
    expect(service.notifier.queued).toEqual([]);
    service.clock.advance(EFFECTS_GRACE_MS);
    await claimJob(deps, id);
    expect(service.notifier.queued).toEqual([{ predictionId: id, status: 'canceled' }]);
    expect(stopped).toHaveLength(1);
    expect(await service.store.get(id)).toMatchObject({ effects: [], sweepAtMs: null });
  });

  it('is done with a message whose prediction is gone', async () => {
    const { deps } = await withJob();
    expect(await claimJob(deps, '00000000-0000-4000-8000-000000000000' as PredictionId)).toEqual({
      kind: 'done',
      reason: 'the prediction is gone',
    });
  });

  it('lets only one of two workers that take the same message at once claim it', async () => {
    const { service, id, deps } = await withJob();
    const [first, second] = await Promise.all([claimJob(deps, id), claimJob(deps, id)]);
    const kinds = [first.kind, second.kind].sort();
    expect(kinds).toEqual(['later', 'run']);
    expect(await service.store.get(id)).toMatchObject({ status: 'processing', attempts: 1 });
  });
});
