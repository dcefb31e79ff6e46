import { describe, expect, it } from 'vitest';
import { claimTerms } from '../../shared/domain/claim.ts';
import type { Prediction } from '../../shared/domain/prediction.ts';
import { phaseLimitsOf } from '../../shared/catalog/registry.ts';
import { fakeClock } from '../support/in-memory/clock.ts';
import { testCatalog } from '../support/catalog.ts';
import { freshOwner, MODEL, moved, startingPrediction, succeeded } from '../support/predictions.ts';
import type { MakePredictionStore } from './prediction-store.contract.ts';

const RETENTION_SECONDS = 3600;
const limits = phaseLimitsOf(testCatalog.require(MODEL));
const S = 1000;

/** The claim of a waiting prediction in one write (`claimWaiting`), held to the domain's `claimed` transition. */
export const describeClaimContract = (name: string, make: MakePredictionStore) =>
  describe(`${name}: the claim of a waiting prediction`, () => {
    const setUp = async () => {
      const clock = fakeClock();
      const { store, accounts } = await make(clock, RETENTION_SECONDS);
      const owner = freshOwner();
      await accounts.createAccount(owner, clock.now(), { balanceKopecks: 1000 });
      const inserted = async (prediction: Prediction) => {
        const result = await store.insert(prediction, null);
        if (!result.ok || result.value.kind !== 'inserted') throw new Error(`not inserted: ${JSON.stringify(result)}`);
        return prediction;
      };
      const claimNow = (id: Prediction['id'], claim = 'claim-9') =>
        store.claimWaiting(id, claimTerms(limits, clock.now(), claim));
      return { store, clock, owner, inserted, claimNow };
    };

    it('claims a starting prediction as the claimed transition does, its sweep time kept', async () => {
      const { store, clock, owner, inserted, claimNow } = await setUp();
      const created = await inserted(startingPrediction({ owner, nowMs: clock.now(), cancelAfterSeconds: 600 }));
      clock.advance(2 * S);
      const expected = moved(created, { type: 'claimed', atMs: clock.now(), claim: 'claim-9' });
      const claimed = await claimNow(created.id);
      expect(claimed).toEqual(expected);
      expect(claimed?.sweepAtMs).toBe(created.sweepAtMs);
      expect(await store.get(created.id)).toEqual(expected);
      expect(await store.statusOf(created.id)).toEqual({ status: 'processing', claim: 'claim-9' });
    });

    it('claims a queued prediction again after a lost run, as its second attempt, leaving its time in the queue behind', async () => {
      const { store, clock, owner, inserted, claimNow } = await setUp();
      const created = await inserted(startingPrediction({ owner, nowMs: clock.now() }));
      const running = moved(created, { type: 'claimed', atMs: clock.now(), claim: 'claim-1' });
      expect(await store.replace(running, created)).toBe(true);
      clock.advance(limits.leaseSeconds * S);
      const requeued = moved(running, { type: 'lost', atMs: clock.now(), claim: 'claim-1' });
      expect(await store.replace(requeued, running)).toBe(true);
      clock.advance(S);
      const { queuedAt, ...expected } = moved(requeued, {
        type: 'claimed',
        atMs: clock.now(),
        claim: 'claim-9',
      }) as Prediction & { queuedAt?: string };
      expect(await claimNow(created.id)).toEqual({ ...expected, attempts: 2 });
      expect(await store.get(created.id)).toEqual({ ...expected, attempts: 2 });
    });

    it('writes nothing for a prediction that is not waiting: running, ended, or not there', async () => {
      const { store, clock, owner, inserted, claimNow } = await setUp();
      const created = await inserted(startingPrediction({ owner, nowMs: clock.now() }));
      const running = moved(created, { type: 'claimed', atMs: clock.now(), claim: 'claim-1' });
      expect(await store.replace(running, created)).toBe(true);
      expect(await claimNow(created.id)).toBeNull();
      expect(await store.get(created.id)).toEqual(running);
      const ended = succeeded(running, clock.now() + 5 * S);
      expect(await store.replace(ended, running)).toBe(true);
      const stored = await store.get(created.id);
      expect(await claimNow(created.id)).toBeNull();
      expect(await store.get(created.id)).toEqual(stored);
      const never = startingPrediction({ owner, nowMs: clock.now() });
      expect(await claimNow(never.id)).toBeNull();
      expect(await store.get(never.id)).toBeNull();
    });

    it('writes nothing for one owed an ending: its deadline come, its queue limit reached, its attempts used', async () => {
      const { store, clock, owner, inserted, claimNow } = await setUp();
      const early = await inserted(startingPrediction({ owner, nowMs: clock.now(), cancelAfterSeconds: 10 }));
      const waiting = await inserted(startingPrediction({ owner, nowMs: clock.now() }));
      clock.advance(10 * S - 1);
      expect(await store.statusOf(early.id)).toMatchObject({ status: 'starting' });
      clock.advance(1);
      expect(await claimNow(early.id)).toBeNull();
      expect(await store.get(early.id)).toEqual(early);
      clock.advance(limits.queueSeconds * S - 10 * S - 1);
      const justInTime = moved(waiting, { type: 'claimed', atMs: clock.now(), claim: 'claim-9' });
      const late = await inserted(startingPrediction({ owner, nowMs: clock.now() - limits.queueSeconds * S }));
      expect(await claimNow(late.id)).toBeNull();
      expect(await store.get(late.id)).toEqual(late);
      expect(await claimNow(waiting.id)).toEqual(justInTime);

      const used = await inserted(startingPrediction({ owner, nowMs: clock.now() }));
      let stored: Prediction = used;
      for (let attempt = 1; attempt <= limits.maxAttempts; attempt++) {
        const running = moved(stored, { type: 'claimed', atMs: clock.now(), claim: `claim-${attempt}` });
        expect(await store.replace(running, stored)).toBe(true);
        const lost = moved(running, { type: 'lost', atMs: clock.now(), claim: `claim-${attempt}` });
        expect(await store.replace(lost, running)).toBe(true);
        stored = lost;
      }
      expect(stored).toMatchObject({ status: 'queued', attempts: limits.maxAttempts });
      expect(await claimNow(used.id)).toBeNull();
      expect(await store.get(used.id)).toEqual(stored);
    });
  });
