import { describe, expect, it } from 'vitest';
import { formatTimestamp, parseTimestamp } from '../../shared/domain/clock.ts';
import { newPredictionId, asAccountId } from '../../shared/domain/ids.ts';
import { createPrediction, transition, type Prediction, type PredictionEvent } from '../../shared/domain/prediction.ts';
import { roublesToMicro } from '../../shared/domain/pricing.ts';

const pricing = { pricePerSecondMicro: roublesToMicro('0.01') };
const T0 = Date.UTC(2026, 10, 21, 12, 0, 0, 123);

const fresh = (): Prediction =>
  createPrediction({
    id: newPredictionId(() => '11111111-2222-4333-8444-555555555555'),
    model: 'prognoz/echo',
    owner: asAccountId('acct'),
    input: { text: 'hi' },
    webhook: null,
    nowMs: T0,
    hold: { kopecks: 30, month: '2026-11' },
  });

const apply = (prediction: Prediction, ...events: PredictionEvent[]): Prediction =>
  events.reduce((current, event) => {
    const next = transition(current, event, pricing);
    if (!next.ok) throw next.error;
    return next.value;
  }, prediction);

describe('timestamps', () => {
  it('are ISO 8601 UTC with microseconds and Z', () => {
    expect(formatTimestamp(T0)).toBe('2026-11-21T12:00:00.123000Z');
    expect(parseTimestamp(formatTimestamp(T0))).toBe(T0);
  });
});

describe('ids', () => {
  it('must be UUID-shaped', () => {
    expect(() => newPredictionId(() => 'not-a-uuid')).toThrow();
  });
});

describe('the prediction state machine', () => {
  it('starts as starting with no output', () => {
    expect(fresh()).toMatchObject({ status: 'starting', startedAt: null, source: 'api', createdAt: '2026-11-21T12:00:00.123000Z' });
  });

  it('goes queued → processing → succeeded, costing its runtime', () => {
    const done = apply(fresh(), { type: 'queued' }, { type: 'started', atMs: T0 + 1000 }, { type: 'succeeded', atMs: T0 + 4000, output: { text: 'hi' }, runtimeMs: 2500 });
    expect(done).toMatchObject({ status: 'succeeded', output: { text: 'hi' }, runtimeMs: 2500, costKopecks: 3, startedAt: formatTimestamp(T0 + 1000) });
  });

  it('counts a second start as a retry', () => {
    const again = apply(fresh(), { type: 'started', atMs: T0 }, { type: 'started', atMs: T0 + 5 });
    expect(again).toMatchObject({ status: 'processing', attempts: 2 });
  });

  it('bills a cancel for the time used, and nothing when it never started', () => {
    const running = apply(fresh(), { type: 'started', atMs: T0 });
    expect(apply(running, { type: 'canceled', atMs: T0 + 1500 })).toMatchObject({ status: 'canceled', runtimeMs: 1500, costKopecks: 2 });
    expect(apply(fresh(), { type: 'canceled', atMs: T0 + 1500 })).toMatchObject({ status: 'canceled', runtimeMs: null, costKopecks: 0 });
  });

  it('never changes a terminal prediction, but a second cancel is not an error', () => {
    const canceled = apply(fresh(), { type: 'canceled', atMs: T0 });
    const again = transition(canceled, { type: 'canceled', atMs: T0 + 10 }, pricing);
    expect(again).toEqual({ ok: true, value: canceled });

    const succeeded = apply(fresh(), { type: 'started', atMs: T0 }, { type: 'succeeded', atMs: T0 + 1, output: {}, runtimeMs: 1 });
    for (const event of [
      { type: 'canceled', atMs: T0 },
      { type: 'failed', atMs: T0, error: 'x', runtimeMs: null },
      { type: 'started', atMs: T0 },
      { type: 'queued' },
    ] as const) {
      const result = transition(succeeded, event, pricing);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error.code).toBe('prediction_finished');
    }
  });

  it('only queues a prediction that has not started', () => {
    const running = apply(fresh(), { type: 'started', atMs: T0 });
    expect(transition(running, { type: 'queued' }, pricing).ok).toBe(false);
  });
});
