import { describe, expect, it, vi } from 'vitest';
import type { WebhookEvent } from '../../shared/domain/prediction.ts';
import { applyEvent } from '../../shared/use-cases/apply-event.ts';
import { endPrediction, stoppingExecutions } from '../../shared/use-cases/end-prediction.ts';
import { createEchoPrediction } from '../support/in-memory/echo-prediction.ts';
import { inMemoryService } from '../support/in-memory/service.ts';

const WEBHOOK = 'https://example.com/hook';

/** A created echo prediction, queued, and claimed by a worker a second later (still held: 30 kopecks). */
const running = async (options: { webhookEvents?: WebhookEvent[] | null } = {}) => {
  const service = inMemoryService();
  const { id, account, execution } = await createEchoPrediction(service, {
    balanceKopecks: 100,
    webhook: WEBHOOK,
    webhookEvents: options.webhookEvents ?? null,
  });
  service.clock.advance(1000);
  const claimed = await applyEvent(service, id, { type: 'claimed', atMs: service.clock.now(), claim: 'c1' });
  if (!claimed.ok) throw claimed.error;
  const deps = stoppingExecutions(service, 'the prediction has ended');
  const money = async () => {
    const now = await account();
    return { balance: now?.balanceKopecks, held: now?.heldKopecks, spent: now?.spentThisMonthKopecks };
  };
  return { service, id, deps, money, execution, claimed: claimed.value.after };
};

/** The worker's end of its run under claim c1. */
const succeeded = (atMs: number, runtimeMs: number) =>
  ({ type: 'succeeded', atMs, claim: 'c1', output: { kind: 'inline', value: 'hi' }, runtimeMs }) as const;

describe('ending a prediction', () => {
  it('charges its model time, releases its hold, stops its execution and queues its webhook', async () => {
    const { service, id, deps, money, execution } = await running();
    service.clock.advance(7000);
    const ended = await endPrediction(deps, id, {
      type: 'succeeded',
      atMs: service.clock.now(),
      claim: 'c1',
      output: { kind: 'inline', value: 'hi' },
      runtimeMs: 7000,
    });
    expect(ended.ok && ended.value).toMatchObject({
      status: 'succeeded',
      costKopecks: 7,
      effects: [],
      sweepAtMs: null,
    });
    expect(await money()).toEqual({ balance: 93, held: 0, spent: 7 });
    expect(execution()?.status).toBe('ABORTED');
    expect(service.notifier.queued).toEqual([{ predictionId: id, status: 'succeeded' }]);
    expect(await service.store.get(id)).toMatchObject({ status: 'succeeded', effects: [] });
  });

  it('charges once when the end is repeated, and sends no second webhook', async () => {
    const { service, id, deps, money } = await running();
    const failed = { type: 'failed', atMs: service.clock.now(), error: 'boom', runtimeMs: 2000, by: 'worker' } as const;
    expect((await endPrediction(deps, id, failed)).ok).toBe(true);
    const again = await endPrediction(deps, id, failed);
    expect(again.ok ? again.value : again.error.code).toBe('prediction_finished');
    expect(await money()).toEqual({ balance: 98, held: 0, spent: 2 });
    expect(service.notifier.queued).toHaveLength(1);
  });

  it('takes a repeated cancel as done, charging nothing more', async () => {
    const { service, id, deps, money } = await running();
    const cancel = { type: 'canceled', atMs: service.clock.now() + 3000, by: 'api' } as const;
    const first = await endPrediction(deps, id, cancel);
    const second = await endPrediction(deps, id, cancel);
    expect(first.ok && first.value.status).toBe('canceled');
    expect(second.ok && second.value.status).toBe('canceled');
    expect(await money()).toEqual({ balance: 97, held: 0, spent: 3 });
    expect(service.notifier.queued).toEqual([{ predictionId: id, status: 'canceled' }]);
  });

  it('keeps what it could not do owed, and does it when the end is tried again', async () => {
    const { service, id, deps, money, execution } = await running();
    service.notifier.failing(new Error('the queue is down'));
    const event = { type: 'canceled', atMs: service.clock.now(), by: 'api' } as const;
    await expect(endPrediction(deps, id, event)).rejects.toThrow(/side effects still owed/);
    expect(execution()?.status).toBe('ABORTED');
    expect(await service.store.get(id)).toMatchObject({ status: 'canceled', effects: ['notify'] });
    expect(await money()).toMatchObject({ held: 0 });
    service.notifier.failing(null);
    expect((await endPrediction(deps, id, event)).ok).toBe(true);
    expect(await service.store.get(id)).toMatchObject({ effects: [], sweepAtMs: null });
    expect(service.notifier.queued).toEqual([{ predictionId: id, status: 'canceled' }]);
  });

  it('writes the end from the prediction as its ender knows it, without reading it first', async () => {
    const { service, id, deps, money, claimed } = await running();
    const reads = vi.spyOn(service.store, 'get');
    service.clock.advance(4000);
    const ended = await endPrediction(deps, id, succeeded(service.clock.now(), 4000), claimed);
    expect(ended.ok && ended.value).toMatchObject({ status: 'succeeded', costKopecks: 4 });
    expect(reads).not.toHaveBeenCalled();
    expect(await money()).toEqual({ balance: 96, held: 0, spent: 4 });
  });

  it('reads and decides again when what its ender knows is no longer so: a cancel that came first stands', async () => {
    const { service, id, deps, money, claimed } = await running();
    service.clock.advance(3000);
    const canceled = await endPrediction(deps, id, { type: 'canceled', atMs: service.clock.now(), by: 'api' });
    expect(canceled.ok && canceled.value.status).toBe('canceled');
    const reads = vi.spyOn(service.store, 'get');
    const late = await endPrediction(deps, id, succeeded(service.clock.now(), 9000), claimed);
    expect(late.ok ? late.value.status : late.error.code).toBe('prediction_finished');
    expect(reads).toHaveBeenCalled();
    expect(await service.store.get(id)).toMatchObject({ status: 'canceled', costKopecks: 3 });
    expect(await money()).toEqual({ balance: 97, held: 0, spent: 3 });
    expect(service.notifier.queued).toEqual([{ predictionId: id, status: 'canceled' }]);
  });

  it("queues no webhook when the prediction's filter leaves its end out", async () => {
    const { service, id, deps } = await running({ webhookEvents: ['start'] });
    const ended = await endPrediction(deps, id, {
      type: 'failed',
      atMs: service.clock.now(),
      error: 'boom',
      runtimeMs: null,
      by: 'sweeper',
    });
    expect(ended.ok && ended.value.effects).toEqual([]);
    expect(service.notifier.queued).toEqual([]);
  });
});
