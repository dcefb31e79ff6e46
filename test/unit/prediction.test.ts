import { describe, expect, it } from 'vitest';
import { applier } from '../support/transitions.ts';
import { formatTimestamp, parseTimestamp } from '../../shared/domain/clock.ts';
import { newPredictionId, asAccountId } from '../../shared/domain/ids.ts';
import {
  withEffectsDone,
  type PhaseLimits,
  type Prediction,
  type TerminalPrediction,
} from '../../shared/domain/prediction.ts';
import { createPrediction, transition } from '../../shared/domain/transition.ts';
import { EFFECTS_GRACE_MS } from '../../shared/domain/phases.ts';
import { roublesToMicro } from '../../shared/domain/pricing.ts';
import { DEFAULT_MAX_ATTEMPTS, DEFAULT_QUEUE_SECONDS, phaseLimitsOf } from '../../shared/catalog/definition.ts';
import { testCatalog } from '../support/catalog.ts';

const echoModel = testCatalog.require('prognoz/echo');

const limits: PhaseLimits = { queueSeconds: 3600, runSeconds: 900, leaseSeconds: 4, maxAttempts: 2 };
const policy = { pricePerSecondMicro: roublesToMicro('0.01'), limits };
const T0 = Date.UTC(2026, 10, 21, 12, 0, 0, 123);
const inline = (value: unknown) => ({ kind: 'inline', value }) as const;

const fresh = (webhook: string | null = null): Prediction =>
  createPrediction({
    id: newPredictionId(() => '11111111-2222-4333-8444-555555555555'),
    model: 'prognoz/echo',
    owner: asAccountId('acct'),
    input: { kind: 'inline', value: { text: 'hi' } },
    webhook,
    nowMs: T0,
    hold: { kopecks: 30, month: '2026-11' },
    limits: phaseLimitsOf(testCatalog.require('prognoz/echo')),
  });

const apply = applier(policy);

const claimed = (at = T0 + 1000, claim = 'c1') =>
  apply(fresh(), { type: 'queued', atMs: T0 }, { type: 'claimed', atMs: at, claim });

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
  it('starts as starting with no output, due for the sweeper at its queue limit', () => {
    expect(fresh()).toMatchObject({
      status: 'starting',
      startedAt: null,
      source: 'api',
      attempts: 0,
      createdAt: '2026-11-21T12:00:00.123000Z',
      sweepAtMs: T0 + limits.queueSeconds * 1000,
    });
  });

  it('goes queued → processing → succeeded, costing its runtime, billed from the claim', () => {
    const done = apply(claimed(), {
      type: 'succeeded',
      atMs: T0 + 4000,
      claim: 'c1',
      output: inline({ text: 'hi' }),
      runtimeMs: 2500,
    });
    expect(done).toMatchObject({
      status: 'succeeded',
      output: inline({ text: 'hi' }),
      runtimeMs: 2500,
      costKopecks: 3,
      startedAt: formatTimestamp(T0 + 1000),
      attempts: 1,
    });
  });

  it('may wait in the queue up to the queue limit: the sweep deadline is the end of the wait, not a heartbeat', () => {
    const queued = apply(fresh(), { type: 'queued', atMs: T0 + 10 });
    expect(queued).toMatchObject({
      status: 'queued',
      queuedAt: formatTimestamp(T0 + 10),
      sweepAtMs: T0 + 10 + limits.queueSeconds * 1000,
    });
  });

  it('has the sweeper look at a claimed prediction no later than its run limit, its lease and a wait for another worker', () => {
    expect(claimed().sweepAtMs).toBeLessThanOrEqual(
      T0 + 1000 + (limits.runSeconds + limits.leaseSeconds + limits.queueSeconds) * 1000,
    );
  });

  it('takes a result only from the claim that holds it', () => {
    const result = transition(
      claimed(),
      { type: 'succeeded', atMs: T0 + 2, claim: 'someone-else', output: inline({}), runtimeMs: 1 },
      policy,
    );
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.code).toBe('claim_lost');
    const failed = transition(
      claimed(),
      { type: 'failed', atMs: T0 + 2, claim: 'someone-else', error: 'x', runtimeMs: 1, by: 'worker' },
      policy,
    );
    expect(failed.ok).toBe(false);
  });

  it('puts a lost claim back in the queue, and claims it again as a second attempt', () => {
    const lost = apply(claimed(), { type: 'lost', atMs: T0 + 9000, claim: 'c1' });
    expect(lost).toMatchObject({
      status: 'queued',
      startedAt: null,
      attempts: 1,
      queuedAt: formatTimestamp(T0 + 9000),
    });
    const again = apply(lost, { type: 'claimed', atMs: T0 + 9500, claim: 'c2' });
    expect(again).toMatchObject({
      status: 'processing',
      attempts: 2,
      claim: 'c2',
      startedAt: formatTimestamp(T0 + 9500),
    });
    // The first worker's late result no longer counts.
    expect(
      transition(again, { type: 'succeeded', atMs: T0 + 9600, claim: 'c1', output: inline({}), runtimeMs: 1 }, policy)
        .ok,
    ).toBe(false);
  });

  it('never claims past the attempts a model allows', () => {
    const twice = apply(
      claimed(),
      { type: 'lost', atMs: T0 + 2, claim: 'c1' },
      { type: 'claimed', atMs: T0 + 3, claim: 'c2' },
      { type: 'lost', atMs: T0 + 4, claim: 'c2' },
    );
    const result = transition(twice, { type: 'claimed', atMs: T0 + 5, claim: 'c3' }, policy);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.code).toBe('invalid_transition');
  });

  it('bills a cancel for the time used, and nothing when it never started', () => {
    expect(apply(claimed(T0), { type: 'canceled', atMs: T0 + 1500, by: 'api' })).toMatchObject({
      status: 'canceled',
      runtimeMs: 1500,
      costKopecks: 2,
    });
    expect(apply(fresh(), { type: 'canceled', atMs: T0 + 1500, by: 'api' })).toMatchObject({
      status: 'canceled',
      runtimeMs: null,
      costKopecks: 0,
    });
  });

  it('owes the side effects of its end: the execution stopped unless the workflow ended it, the webhook when one is registered', () => {
    const hooked = apply(
      fresh('https://example.com/hook'),
      { type: 'queued', atMs: T0 },
      { type: 'claimed', atMs: T0, claim: 'c1' },
    );
    const byWorker = apply(hooked, {
      type: 'succeeded',
      atMs: T0 + 5,
      claim: 'c1',
      output: inline({}),
      runtimeMs: 5,
    }) as TerminalPrediction;
    expect(byWorker.effects).toEqual(['stop', 'notify']);
    expect(byWorker.sweepAtMs).toBe(T0 + 5 + EFFECTS_GRACE_MS);
    const byWorkflow = apply(fresh(), {
      type: 'failed',
      atMs: T0 + 5,
      error: 'x',
      runtimeMs: null,
      by: 'workflow',
    }) as TerminalPrediction;
    expect(byWorkflow.effects).toEqual([]);
    expect(byWorkflow.sweepAtMs).toBeNull();
    expect(withEffectsDone(byWorker, ['stop'])).toMatchObject({ effects: ['notify'], sweepAtMs: byWorker.sweepAtMs });
    expect(withEffectsDone(byWorker, ['stop', 'notify'])).toMatchObject({ effects: [], sweepAtMs: null });
  });

  it('owes no execution end when its worker ended the execution before the end: a plain one then owes nothing', () => {
    const claimed = (webhook: string | null) =>
      apply(fresh(webhook), { type: 'queued', atMs: T0 }, { type: 'claimed', atMs: T0, claim: 'c1' });
    const ending = {
      type: 'succeeded',
      atMs: T0 + 5,
      claim: 'c1',
      output: inline({}),
      runtimeMs: 5,
      executionEnded: true,
    } as const;
    expect(apply(claimed(null), ending)).toMatchObject({ effects: [], sweepAtMs: null });
    expect(apply(claimed('https://example.com/hook'), ending)).toMatchObject({
      effects: ['notify'],
      sweepAtMs: T0 + 5 + EFFECTS_GRACE_MS,
    });
  });

  it('never changes a terminal prediction, but a second cancel is not an error', () => {
    const canceled = apply(fresh(), { type: 'canceled', atMs: T0, by: 'api' });
    const again = transition(canceled, { type: 'canceled', atMs: T0 + 10, by: 'api' }, policy);
    expect(again).toEqual({ ok: true, value: canceled });

    const succeeded = apply(claimed(T0), {
      type: 'succeeded',
      atMs: T0 + 1,
      claim: 'c1',
      output: inline({}),
      runtimeMs: 1,
    });
    for (const event of [
      { type: 'canceled', atMs: T0, by: 'api' },
      { type: 'failed', atMs: T0, error: 'x', runtimeMs: null, by: 'sweeper' },
      { type: 'claimed', atMs: T0, claim: 'c9' },
      { type: 'queued', atMs: T0 },
    ] as const) {
      const result = transition(succeeded, event, policy);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error.code).toBe('prediction_finished');
    }
  });

  it('only queues a prediction that has not started', () => {
    expect(transition(claimed(), { type: 'queued', atMs: T0 }, policy).ok).toBe(false);
  });
});

describe('phase limits', () => {
  it('default to an hour in the queue and two attempts, with a lease of two heartbeats', () => {
    expect(phaseLimitsOf(echoModel)).toEqual({
      queueSeconds: DEFAULT_QUEUE_SECONDS,
      runSeconds: echoModel.timeouts.runSeconds,
      leaseSeconds: 2 * echoModel.timeouts.heartbeatSeconds,
      maxAttempts: DEFAULT_MAX_ATTEMPTS,
    });
    expect([DEFAULT_QUEUE_SECONDS, DEFAULT_MAX_ATTEMPTS]).toEqual([3600, 2]);
  });
});
