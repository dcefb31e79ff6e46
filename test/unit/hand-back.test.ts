import { phaseLimitsOf } from '../../shared/catalog/registry.ts';
import { describe, expect, it } from 'vitest';
import { applier } from '../support/transitions.ts';
import { formatTimestamp } from '../../shared/domain/clock.ts';
import { asAccountId, newPredictionId } from '../../shared/domain/ids.ts';
import { type PhaseLimits } from '../../shared/domain/prediction.ts';
import { createPrediction, transition } from '../../shared/domain/transition.ts';
import { roublesToMicro } from '../../shared/domain/pricing.ts';
import { testCatalog } from '../support/catalog.ts';

const limits: PhaseLimits = { queueSeconds: 3600, runSeconds: 900, leaseSeconds: 4, maxAttempts: 2 };
const policy = { pricePerSecondMicro: roublesToMicro('0.01'), limits };
const apply = applier(policy);
const T0 = Date.UTC(2026, 10, 25, 12, 0, 0, 0);

const queued = () =>
  apply(
    createPrediction({
      id: newPredictionId(() => '11111111-2222-4333-8444-555555555555'),
      model: 'prognoz/echo',
      owner: asAccountId('acct'),
      input: { kind: 'inline', value: { text: 'hi' } },
      webhook: null,
      nowMs: T0,
      hold: { kopecks: 30, month: '2026-11' },
      limits: phaseLimitsOf(testCatalog.require('prognoz/echo')),
    }),
    { type: 'queued', atMs: T0 },
  );

describe('a run handed back by a stopping worker', () => {
  it('goes back to the queue as a lost run does, but its attempt does not count', () => {
    const handedBack = apply(
      queued(),
      { type: 'claimed', atMs: T0 + 1000, claim: 'c1' },
      { type: 'lost', atMs: T0 + 5000, claim: 'c1', handedBack: true },
    );
    expect(handedBack).toMatchObject({
      status: 'queued',
      startedAt: null,
      attempts: 0,
      queuedAt: formatTimestamp(T0 + 5000),
    });
    const lost = apply(
      queued(),
      { type: 'claimed', atMs: T0 + 1000, claim: 'c1' },
      { type: 'lost', atMs: T0 + 5000, claim: 'c1' },
    );
    expect(lost).toMatchObject({ status: 'queued', attempts: 1 });
  });

  it('is run again however many times it was handed back, within the attempts a model allows', () => {
    let prediction = queued();
    for (let round = 1; round <= limits.maxAttempts + 1; round++) {
      prediction = apply(
        prediction,
        { type: 'claimed', atMs: T0 + round * 10, claim: `c${round}` },
        { type: 'lost', atMs: T0 + round * 10 + 5, claim: `c${round}`, handedBack: true },
      );
    }
    const again = apply(prediction, { type: 'claimed', atMs: T0 + 100, claim: 'last' });
    expect(again).toMatchObject({ status: 'processing', attempts: 1, claim: 'last' });
  });

  it('only by the worker holding its claim', () => {
    const claimed = apply(queued(), { type: 'claimed', atMs: T0 + 1000, claim: 'c1' });
    const result = transition(claimed, { type: 'lost', atMs: T0 + 2000, claim: 'other', handedBack: true }, policy);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.code).toBe('claim_lost');
  });
});
