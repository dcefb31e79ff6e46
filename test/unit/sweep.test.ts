import { describe, expect, it } from 'vitest';
import { ENDINGS } from '../../shared/domain/endings.ts';
import { EFFECTS_GRACE_MS, START_GRACE_MS, START_LIMIT_MS } from '../../shared/domain/phases.ts';
import { phaseLimitsOf } from '../../shared/catalog/registry.ts';
import { applyEvent } from '../../shared/use-cases/apply-event.ts';
import { removeExpiredData, sweep, sweepOne } from '../../shared/use-cases/sweep.ts';
import { createEchoPrediction, echo } from '../support/in-memory/echo-prediction.ts';
import { inMemoryService } from '../support/in-memory/service.ts';

const limits = phaseLimitsOf(echo);
const S = 1000;
const RETENTION_SECONDS = 3600;

const throttled = () => Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });

/**
 * A fresh in-memory service with one echo prediction; `refusedStarts` makes its workflow's first
 * starts fail as a throttled engine would, so the create puts it off (`pending`) for the sweeper.
 */
const withPrediction = async (options: { refusedStarts?: number; cancelAfterSeconds?: number } = {}) => {
  const service = inMemoryService(undefined, RETENTION_SECONDS);
  service.workflow.refuse(...Array.from({ length: options.refusedStarts ?? 0 }, throttled));
  return { service, ...(await createEchoPrediction(service, options)) };
};

describe('the sweeper', () => {
  it('starts a prediction whose create could not start its workflow, once its start is overdue', async () => {
    const { service, id, execution, start } = await withPrediction({ refusedStarts: 4 });
    expect(start.kind).toBe('deferred');
    expect(await service.store.get(id)).toMatchObject({ status: 'pending' });
    expect(await sweepOne(service, id)).toBe('not_due');
    service.clock.advance(START_GRACE_MS);
    expect(await sweepOne(service, id)).toBe('started');
    expect(execution()?.status).toBe('RUNNING');
    expect(await service.store.get(id)).toMatchObject({ status: 'queued' });
  });

  it('keeps trying to start it while the engine refuses, and fails it with why after the start limit', async () => {
    const { service, id, held } = await withPrediction({ refusedStarts: 4 + 4 + 4 });
    service.clock.advance(START_GRACE_MS);
    const putOff = await service.store.get(id);
    expect(await sweepOne(service, id)).toBe('deferred');
    // A start refused again writes nothing: the sweeper retries it as it is.
    expect(await service.store.get(id)).toEqual(putOff);
    service.clock.advance(START_LIMIT_MS);
    expect(await sweepOne(service, id)).toBe('ended');
    expect(await service.store.get(id)).toMatchObject({ status: 'failed', error: ENDINGS.notStarted, effects: [] });
    expect(await held()).toBe(0);
    expect(service.notifier.queued).toEqual([{ predictionId: id, status: 'failed' }]);
  });

  it('fails a prediction whose execution ended before the prediction did', async () => {
    const { service, id, arn } = await withPrediction({ refusedStarts: 4 });
    // A start that took while its caller saw it fail, and an execution that has ended since.
    await service.workflow.start(arn, { predictionId: id });
    service.workflow.end(arn, id, 'FAILED');
    service.clock.advance(START_GRACE_MS);
    expect(await sweepOne(service, id)).toBe('ended');
    expect(await service.store.get(id)).toMatchObject({ status: 'failed', error: ENDINGS.workflowEnded('FAILED') });
  });

  it('fails a running prediction whose lost worker no one replaced, after its run, a lease and a queue wait', async () => {
    const { service, id } = await withPrediction();
    await applyEvent(service, id, { type: 'claimed', atMs: service.clock.now(), claim: 'c1' });
    service.clock.advance((limits.runSeconds + limits.leaseSeconds + limits.queueSeconds) * S - 1);
    expect(await sweepOne(service, id)).toBe('not_due');
    service.clock.advance(1);
    expect(await sweepOne(service, id)).toBe('ended');
    expect(await service.store.get(id)).toMatchObject({
      status: 'failed',
      error: ENDINGS.lostNotResumed(limits.queueSeconds),
    });
  });

  it("fails a waiting prediction no worker took up within the model's queue limit, and stops its execution", async () => {
    const { service, id, execution } = await withPrediction();
    service.clock.advance(limits.queueSeconds * S - 1);
    expect(await sweepOne(service, id)).toBe('not_due');
    service.clock.advance(1);
    expect(await sweepOne(service, id)).toBe('ended');
    expect(await service.store.get(id)).toMatchObject({
      status: 'failed',
      error: ENDINGS.noCapacity(limits.queueSeconds),
    });
    expect(execution()?.status).toBe('ABORTED');
  });

  it('leaves a prediction its create started alone until its queue limit, reading its execution only then', async () => {
    const { service, id, arn } = await withPrediction();
    service.clock.advance(limits.queueSeconds * S - 1);
    expect(await service.store.due(service.clock.now(), 100)).toEqual([]);
    // Its create died between recording it and starting it: no execution, so nothing ever ran it.
    service.workflow.forget(arn, id);
    service.clock.advance(1);
    expect(await service.store.due(service.clock.now(), 100)).toEqual([id]);
    expect(await sweepOne(service, id)).toBe('started');
    expect(service.workflow.executions(arn).get(id)?.status).toBe('RUNNING');
    // Queued from now: it has its whole queue limit again.
    expect(await service.store.get(id)).toMatchObject({
      status: 'queued',
      sweepAtMs: service.clock.now() + limits.queueSeconds * S,
    });
  });

  it('puts it off again when its late start is refused', async () => {
    const { service, id, arn } = await withPrediction();
    service.workflow.forget(arn, id);
    service.clock.advance(limits.queueSeconds * S);
    service.workflow.refuse(...Array.from({ length: 4 }, throttled));
    expect(await sweepOne(service, id)).toBe('deferred');
    expect(await service.store.get(id)).toMatchObject({ status: 'pending' });
    expect(service.workflow.executions(arn).has(id)).toBe(false);
  });

  it('puts off a run the sweeper finds at the time its claim kept, to when its run is due', async () => {
    const { service, id } = await withPrediction();
    await applyEvent(service, id, { type: 'claimed', atMs: service.clock.now(), claim: 'c1' });
    const claimedAt = service.clock.now();
    service.clock.advance(limits.queueSeconds * S);
    expect(await service.store.due(service.clock.now(), 100)).toEqual([id]);
    expect(await sweepOne(service, id)).toBe('not_due');
    expect(await service.store.get(id)).toMatchObject({
      status: 'processing',
      sweepAtMs: claimedAt + (limits.runSeconds + limits.leaseSeconds + limits.queueSeconds) * S,
    });
    expect(await service.store.due(service.clock.now(), 100)).toEqual([]);
  });

  it('cancels a running prediction past its deadline only once its worker has had a lease to do it', async () => {
    const { service, id } = await withPrediction({ cancelAfterSeconds: 60 });
    await applyEvent(service, id, { type: 'claimed', atMs: service.clock.now(), claim: 'c1' });
    service.clock.advance(60 * S);
    expect(await sweepOne(service, id)).toBe('not_due');
    service.clock.advance(limits.leaseSeconds * S);
    expect(await sweepOne(service, id)).toBe('ended');
    const ended = await service.store.get(id);
    expect(ended).toMatchObject({ status: 'canceled', error: ENDINGS.deadline(ended?.deadlineAt ?? '') });
  });

  it('does what an ended prediction still owes once its ender has had its grace', async () => {
    const { service, id, execution } = await withPrediction();
    await applyEvent(service, id, { type: 'canceled', atMs: service.clock.now(), by: 'api' });
    service.clock.advance(EFFECTS_GRACE_MS);
    expect(await sweepOne(service, id)).toBe('settled');
    expect(service.notifier.queued).toEqual([{ predictionId: id, status: 'canceled' }]);
    expect(execution()?.status).toBe('ABORTED');
    expect(await service.store.get(id)).toMatchObject({ effects: [], sweepAtMs: null });
  });

  it('sweeps every due prediction once, counting what it did', async () => {
    const due = await withPrediction();
    const { service } = due;
    service.clock.advance(limits.queueSeconds * S);
    expect(await sweep(service)).toEqual({ looked: 1, actions: { ended: 1 } });
    expect(await sweep(service)).toEqual({ looked: 0, actions: {} });
  });

  it("removes an ended prediction's data at the end of its retention, and keeps its record", async () => {
    const { service, id } = await withPrediction();
    await applyEvent(service, id, { type: 'canceled', atMs: service.clock.now(), by: 'api' });
    service.clock.advance(EFFECTS_GRACE_MS);
    expect(await sweepOne(service, id)).toBe('settled');
    service.clock.advance(RETENTION_SECONDS * S - EFFECTS_GRACE_MS - 1);
    expect(await removeExpiredData(service)).toBe(0);
    service.clock.advance(1);
    expect(await removeExpiredData(service)).toBe(1);
    expect(await service.store.get(id)).toMatchObject({ status: 'canceled', input: {}, dataRemoved: true });
  });
});
