import { describe, expect, it } from 'vitest';
import { applier } from '../support/transitions.ts';
import { ENDINGS } from '../../shared/domain/endings.ts';
import { asAccountId, newPredictionId } from '../../shared/domain/ids.ts';
import {
  attemptsUsed,
  claimLostInMs,
  endingOwed,
  START_GRACE_MS,
  START_LIMIT_MS,
  sweepDeadline,
} from '../../shared/domain/phases.ts';
import type { PhaseLimits, Prediction } from '../../shared/domain/prediction.ts';
import { roublesToMicro } from '../../shared/domain/pricing.ts';
import { createPrediction } from '../../shared/domain/transition.ts';

const limits: PhaseLimits = { queueSeconds: 60, runSeconds: 300, leaseSeconds: 20, maxAttempts: 2 };
const apply = applier({ pricePerSecondMicro: roublesToMicro('0.01'), limits });
const T0 = Date.UTC(2026, 10, 25, 9, 0, 0);
const S = 1000;

const fresh = (cancelAfterSeconds: number | null = null): Prediction =>
  createPrediction({
    id: newPredictionId(),
    model: 'prognoz/echo',
    owner: asAccountId('acct'),
    input: { kind: 'inline', value: {} },
    webhook: null,
    cancelAfterSeconds,
    nowMs: T0,
    hold: { kopecks: 1, month: '2026-11' },
    limits,
  });
const pending = (prediction = fresh()) => apply(prediction, { type: 'deferred', atMs: T0 });
const queued = (prediction = fresh()) => apply(prediction, { type: 'queued', atMs: T0 + S });
const running = (prediction = fresh()) => apply(queued(prediction), { type: 'claimed', atMs: T0 + 2 * S, claim: 'c1' });

describe('the ending a prediction is owed', () => {
  it('is its deadline, whatever phase it is in, as soon as the deadline passes', () => {
    for (const prediction of [fresh(30), queued(fresh(30)), running(fresh(30))]) {
      expect(endingOwed(prediction, limits, T0 + 30 * S - 1)).toBeNull();
      expect(endingOwed(prediction, limits, T0 + 30 * S)).toEqual({
        type: 'canceled',
        error: ENDINGS.deadline(prediction.deadlineAt ?? ''),
      });
    }
  });

  it('is a failure for a prediction whose start was put off and never came within the start limit', () => {
    expect(endingOwed(pending(), limits, T0 + START_LIMIT_MS)).toBeNull();
    expect(endingOwed(pending(), limits, T0 + START_LIMIT_MS + 1)).toEqual({
      type: 'failed',
      error: ENDINGS.notStarted,
    });
  });

  it("is no capacity once a prediction its create started has waited the model's queue limit since its creation", () => {
    expect(endingOwed(fresh(), limits, T0 + 60 * S - 1)).toBeNull();
    expect(endingOwed(fresh(), limits, T0 + 60 * S)).toEqual({ type: 'failed', error: ENDINGS.noCapacity(60) });
  });

  it("is no capacity once a queued prediction has waited the model's queue limit", () => {
    expect(endingOwed(queued(), limits, T0 + S + 60 * S - 1)).toBeNull();
    expect(endingOwed(queued(), limits, T0 + S + 60 * S)).toEqual({
      type: 'failed',
      error: ENDINGS.noCapacity(60),
    });
  });

  it('is a lost worker once a queued prediction has used its attempts', () => {
    const lostTwice = apply(
      running(),
      { type: 'lost', atMs: T0 + 3 * S, claim: 'c1' },
      { type: 'claimed', atMs: T0 + 4 * S, claim: 'c2' },
      { type: 'lost', atMs: T0 + 5 * S, claim: 'c2' },
    );
    expect(attemptsUsed(lostTwice, limits)).toBe(true);
    expect(endingOwed(lostTwice, limits, T0 + 5 * S)).toEqual({ type: 'failed', error: ENDINGS.workerLost(2) });
    // The state machine refuses the claim the rule forbids.
    expect(() => apply(lostTwice, { type: 'claimed', atMs: T0 + 6 * S, claim: 'c3' })).toThrow(/attempts/);
  });

  it('is a failure for a running prediction only after its run, a lease and a queue wait', () => {
    const lostRunEnd = T0 + 2 * S + (300 + 20 + 60) * S;
    expect(endingOwed(running(), limits, lostRunEnd - 1)).toBeNull();
    expect(endingOwed(running(), limits, lostRunEnd)).toEqual({
      type: 'failed',
      error: ENDINGS.lostNotResumed(60),
    });
  });

  it('is nothing for an ended prediction', () => {
    const ended = apply(running(fresh(30)), { type: 'canceled', atMs: T0 + 3 * S, by: 'api' });
    expect(endingOwed(ended, limits, T0 + 3600 * S)).toBeNull();
  });
});

describe('when the sweeper looks', () => {
  it('is when the ending first comes to be owed, for a queued or a lost running prediction', () => {
    for (const prediction of [queued(), running(), queued(fresh(30))]) {
      const at = sweepDeadline(prediction, limits);
      expect(at).not.toBeNull();
      expect(endingOwed(prediction, limits, (at ?? 0) - 1)).toBeNull();
      expect(endingOwed(prediction, limits, at ?? 0)).not.toBeNull();
    }
  });

  it("leaves a running prediction's deadline to its worker for a lease", () => {
    expect(sweepDeadline(running(fresh(30)), limits)).toBe(T0 + 30 * S + 20 * S);
  });

  it('is at its queue limit for a new prediction, at the start grace for one put off, or at its deadline if that comes first', () => {
    expect(fresh().sweepAtMs).toBe(T0 + 60 * S);
    expect(pending().sweepAtMs).toBe(T0 + START_GRACE_MS);
    expect(fresh(10).sweepAtMs).toBe(T0 + 10 * S);
    expect(pending(fresh(10)).sweepAtMs).toBe(T0 + 10 * S);
  });

  it('is kept by a claim when it comes first, so that the claim moves no index entry; the sweeper puts off a run still going', () => {
    expect(apply(fresh(), { type: 'claimed', atMs: T0 + 2 * S, claim: 'c1' }).sweepAtMs).toBe(fresh().sweepAtMs);
    expect(running().sweepAtMs).toBe(queued().sweepAtMs);
    expect(apply(pending(), { type: 'claimed', atMs: T0 + 2 * S, claim: 'c1' }).sweepAtMs).toBe(T0 + START_GRACE_MS);
    expect(sweepDeadline(running(), limits)).toBe(T0 + 2 * S + (300 + 20 + 60) * S);
  });
});

describe('a claim that came back', () => {
  it('counts as lost only after half a lease, since its worker may be alive', () => {
    const startedAt = running().startedAt ?? '';
    expect(claimLostInMs(startedAt, limits, T0 + 2 * S)).toBe(10 * S);
    expect(claimLostInMs(startedAt, limits, T0 + 12 * S)).toBe(0);
  });
});
