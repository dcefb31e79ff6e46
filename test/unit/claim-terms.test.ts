import { describe, expect, it } from 'vitest';
import { claimedOnTerms, claimTerms, meetsClaimTerms } from '../../shared/domain/claim.ts';
import { endingOwed } from '../../shared/domain/phases.ts';
import type { Prediction } from '../../shared/domain/prediction.ts';
import { transition } from '../../shared/domain/transition.ts';
import { phaseLimitsOf, policyOf } from '../../shared/catalog/registry.ts';
import { testCatalog } from '../support/catalog.ts';
import { freshOwner, MODEL, moved, startingPrediction } from '../support/predictions.ts';

const policy = policyOf(testCatalog.require(MODEL));
const limits = phaseLimitsOf(testCatalog.require(MODEL));
const S = 1000;
const T0 = Date.parse('2026-11-25T12:00:00Z');

/** Predictions waiting for a worker, in every way they can: fresh or after lost runs, with or without a deadline. */
const waitingPredictions = (): Prediction[] => {
  const owner = freshOwner();
  const found: Prediction[] = [];
  for (const cancelAfterSeconds of [undefined, 5, 60, 100_000]) {
    let current = startingPrediction({ owner, nowMs: T0, ...(cancelAfterSeconds ? { cancelAfterSeconds } : {}) });
    found.push(current);
    for (let attempt = 1; attempt <= limits.maxAttempts; attempt++) {
      const at = T0 + attempt * 7 * S;
      const claim = `claim-${attempt}`;
      current = moved(current, { type: 'claimed', atMs: at, claim }, { type: 'lost', atMs: at + S, claim });
      found.push(current);
    }
  }
  return found;
};

/** Moments around every limit that bears on its claim: its deadline and its queue limit, a little before and after. */
const moments = (prediction: Prediction): number[] => {
  const waitBegan = prediction.status === 'queued' ? prediction.queuedAt : prediction.createdAt;
  const limitsAt = [Date.parse(waitBegan) + limits.queueSeconds * S, T0 + 100_000 * S];
  if (prediction.deadlineAt !== null) limitsAt.push(Date.parse(prediction.deadlineAt));
  return [Date.parse(waitBegan), ...limitsAt.flatMap((at) => [at - 1, at, at + 1])];
};

describe('the claim terms', () => {
  it('admit exactly the waiting predictions the state machine would claim, owed no ending', () => {
    let admitted = 0;
    let refused = 0;
    for (const prediction of waitingPredictions()) {
      for (const at of moments(prediction)) {
        const claimable =
          endingOwed(prediction, limits, at) === null &&
          transition(prediction, { type: 'claimed', atMs: at, claim: 'c' }, policy).ok;
        expect(meetsClaimTerms(prediction, claimTerms(limits, at, 'c')), `${prediction.status} at +${at - T0} ms`).toBe(
          claimable,
        );
        if (claimable) admitted++;
        else refused++;
      }
    }
    expect(admitted).toBeGreaterThan(10);
    expect(refused).toBeGreaterThan(10);
  });

  it('claim a prediction as the claimed transition does: the same record, its sweep time kept', () => {
    for (const prediction of waitingPredictions()) {
      for (const at of moments(prediction)) {
        const terms = claimTerms(limits, at, 'c');
        if (!meetsClaimTerms(prediction, terms)) continue;
        const next = transition(prediction, { type: 'claimed', atMs: at, claim: 'c' }, policy);
        if (!next.ok) throw next.error;
        const { queuedAt, ...expected } = next.value as Prediction & { queuedAt?: string };
        expect(claimedOnTerms(prediction, terms)).toEqual(expected);
        expect(next.value.sweepAtMs).toBe(prediction.sweepAtMs);
      }
    }
  });

  it('never admit a prediction that is running or has ended', () => {
    const created = startingPrediction({ owner: freshOwner(), nowMs: T0 });
    const running = moved(created, { type: 'claimed', atMs: T0, claim: 'c' });
    const ended = moved(running, { type: 'canceled', atMs: T0 + S, by: 'api' });
    for (const prediction of [running, ended])
      expect(meetsClaimTerms(prediction, claimTerms(limits, T0 + S, 'd'))).toBe(false);
  });
});
