import { describe, expect, it } from 'vitest';
import { claimIdempotencyKey, IDEMPOTENCY_WINDOW_SECONDS } from '../../shared/domain/idempotency.ts';
import { withEffectsDone, type Prediction } from '../../shared/domain/prediction.ts';
import { RECORD_KEPT_AFTER_DATA_SECONDS } from '../../shared/domain/retention.ts';
import type { AccountStore } from '../../shared/ports/account-store.ts';
import type { PredictionStore } from '../../shared/ports/prediction-store.ts';
import { fakeClock, type FakeClock } from '../support/in-memory/clock.ts';
import {
  failedByWorkflow,
  freshOwner,
  idInShard,
  moved,
  processing,
  startingPrediction,
  succeeded,
} from '../support/predictions.ts';

export interface PredictionStoreHarness {
  readonly store: PredictionStore;
  /** An account store over the same accounts: the prediction store moves their money. */
  readonly accounts: AccountStore;
}

/** A store whose clock is `clock` and whose retention period is `retentionSeconds`, over accounts of its own. */
export type MakePredictionStore = (clock: FakeClock, retentionSeconds: number) => Promise<PredictionStoreHarness>;

const RETENTION_SECONDS = 3600;

/** What every PredictionStore does, whatever keeps the predictions. */
export const describePredictionStoreContract = (name: string, make: MakePredictionStore) =>
  describe(`${name}: the prediction store`, () => {
    const setUp = async (account: { balanceKopecks?: number; monthlyLimitKopecks?: number | null } = {}) => {
      const clock = fakeClock();
      const harness = await make(clock, RETENTION_SECONDS);
      const owner = freshOwner();
      await harness.accounts.createAccount(owner, clock.now(), { balanceKopecks: 100, ...account });
      const money = async () => {
        const summary = await harness.accounts.getAccount(owner, clock.now());
        if (!summary) throw new Error('the account is gone');
        return {
          balance: summary.balanceKopecks,
          available: summary.availableKopecks,
          held: summary.heldKopecks,
          spent: summary.spentThisMonthKopecks,
        };
      };
      const inserted = async (prediction: Prediction) => {
        const result = await harness.store.insert(prediction, account.monthlyLimitKopecks ?? null);
        if (!result.ok || result.value.kind !== 'inserted') throw new Error(`not inserted: ${JSON.stringify(result)}`);
        return prediction;
      };
      return { ...harness, clock, owner, money, inserted };
    };

    describe('insert', () => {
      it("records the prediction, reserves its hold and counts it among the month's runs of its model", async () => {
        const { store, accounts, clock, owner, money } = await setUp();
        const prediction = startingPrediction({ owner, nowMs: clock.now(), holdKopecks: 30 });
        expect(await accounts.runsThisMonth(owner, prediction.model, clock.now())).toBe(0);
        expect(await store.insert(prediction, null)).toEqual({ ok: true, value: { kind: 'inserted' } });
        expect(await store.get(prediction.id)).toEqual(prediction);
        expect(await money()).toEqual({ balance: 100, available: 70, held: 30, spent: 0 });
        expect(await accounts.runsThisMonth(owner, prediction.model, clock.now())).toBe(1);
        expect(await accounts.runsThisMonth(owner, 'acme/other', clock.now())).toBe(0);
      });

      it('is refused for insufficient funds, writing nothing', async () => {
        const { store, clock, owner, money } = await setUp({ balanceKopecks: 20 });
        const prediction = startingPrediction({ owner, nowMs: clock.now(), holdKopecks: 30 });
        const result = await store.insert(prediction, null);
        expect(result.ok ? result.value : result.error.code).toBe('insufficient_funds');
        expect(await store.get(prediction.id)).toBeNull();
        expect(await money()).toEqual({ balance: 20, available: 20, held: 0, spent: 0 });
      });

      it('finds no account to write to, writing nothing: the account is read again', async () => {
        const { store, clock } = await setUp();
        const prediction = startingPrediction({ owner: freshOwner(), nowMs: clock.now() });
        expect(await store.insert(prediction, null)).toEqual({ ok: true, value: { kind: 'limit_changed' } });
        expect(await store.get(prediction.id)).toBeNull();
      });

      it("writes only while the account's monthly limit is the one given, else nothing", async () => {
        const { store, accounts, clock, owner, money } = await setUp({ balanceKopecks: 20, monthlyLimitKopecks: 50 });
        const prediction = startingPrediction({ owner, nowMs: clock.now(), holdKopecks: 10 });
        // A limit read before it was set, raised or lowered; funds short or not, the limit speaks first.
        for (const [limit, hold] of [
          [null, 10],
          [80, 10],
          [40, 10],
          [null, 30],
        ] as const) {
          const tried = startingPrediction({ owner, nowMs: clock.now(), holdKopecks: hold });
          expect(await store.insert(tried, limit)).toEqual({ ok: true, value: { kind: 'limit_changed' } });
          expect(await store.get(tried.id)).toBeNull();
        }
        expect(await money()).toEqual({ balance: 20, available: 20, held: 0, spent: 0 });
        const short = await store.insert(startingPrediction({ owner, nowMs: clock.now(), holdKopecks: 30 }), 50);
        expect(short.ok ? short.value : short.error.code).toBe('insufficient_funds');
        expect(await store.insert(prediction, 50)).toEqual({ ok: true, value: { kind: 'inserted' } });
        await accounts.setMonthlyLimit(owner, null);
        const after = startingPrediction({ owner, nowMs: clock.now(), holdKopecks: 10 });
        expect(await store.insert(after, 50)).toEqual({ ok: true, value: { kind: 'limit_changed' } });
        expect(await store.insert(after, null)).toEqual({ ok: true, value: { kind: 'inserted' } });
        expect(await money()).toEqual({ balance: 20, available: 0, held: 20, spent: 0 });
      });

      it("is refused past the month's limit (committed spend plus the hold), writing nothing", async () => {
        const { store, clock, owner, money, inserted } = await setUp({ balanceKopecks: 1000, monthlyLimitKopecks: 50 });
        await inserted(startingPrediction({ owner, nowMs: clock.now(), holdKopecks: 30 }));
        const over = startingPrediction({ owner, nowMs: clock.now(), holdKopecks: 30 });
        const result = await store.insert(over, 50);
        expect(result.ok ? result.value : result.error.code).toBe('monthly_limit_reached');
        expect(await store.get(over.id)).toBeNull();
        expect(await money()).toEqual({ balance: 1000, available: 970, held: 30, spent: 0 });
        // What fits under the limit still goes in.
        await inserted(startingPrediction({ owner, nowMs: clock.now(), holdKopecks: 20 }));
        expect(await money()).toMatchObject({ available: 950, held: 50 });
      });

      it("counts each month's limit against that month alone: a hold made the month before is charged there when it ends", async () => {
        const { store, accounts, clock, owner, money, inserted } = await setUp({
          balanceKopecks: 1000,
          monthlyLimitKopecks: 50,
        });
        const november = clock.now();
        const held = await inserted(startingPrediction({ owner, nowMs: november, holdKopecks: 30 }));
        clock.advance(6 * 86_400_000);
        // December's committed spend starts empty, whatever November still holds.
        await inserted(startingPrediction({ owner, nowMs: clock.now(), holdKopecks: 50 }));
        const over = await store.insert(startingPrediction({ owner, nowMs: clock.now(), holdKopecks: 1 }), 50);
        expect(over.ok ? over.value : over.error.code).toBe('monthly_limit_reached');
        const running = processing(held, clock.now());
        expect(await store.replace(running, held)).toBe(true);
        expect(await store.replace(succeeded(running, clock.now(), 5000), running)).toBe(true);
        expect(await money()).toEqual({ balance: 995, available: 945, held: 50, spent: 0 });
        expect((await accounts.getAccount(owner, november))?.spentThisMonthKopecks).toBe(5);
        expect(await accounts.runsThisMonth(owner, held.model, november)).toBe(1);
        // What November's end gave back is November's: December is as full as it was.
        const still = await store.insert(startingPrediction({ owner, nowMs: clock.now(), holdKopecks: 1 }), 50);
        expect(still.ok ? still.value : still.error.code).toBe('monthly_limit_reached');
      });

      it('refuses at once a hold larger than the limit itself', async () => {
        const { store, clock, owner, money } = await setUp({ balanceKopecks: 1000 });
        const prediction = startingPrediction({ owner, nowMs: clock.now(), holdKopecks: 30 });
        const result = await store.insert(prediction, 20);
        expect(result.ok ? result.value : result.error.code).toBe('monthly_limit_reached');
        expect(await store.get(prediction.id)).toBeNull();
        expect(await money()).toMatchObject({ available: 1000, held: 0 });
      });

      it('returns the prior claim of a taken idempotency key, writing nothing', async () => {
        const { store, clock, owner, money } = await setUp({ balanceKopecks: 30 });
        const claim = claimIdempotencyKey('key-1', 'fingerprint-1', clock.now());
        const first = startingPrediction({ owner, nowMs: clock.now(), holdKopecks: 30 });
        expect(await store.insert(first, null, claim)).toEqual({ ok: true, value: { kind: 'inserted' } });
        clock.advance(1000);
        // The first took the last of the funds and the repeat's hold is over a limit: the claim still answers.
        for (const limit of [null, 10]) {
          const repeat = startingPrediction({ owner, nowMs: clock.now(), holdKopecks: 30 });
          const again = claimIdempotencyKey('key-1', 'fingerprint-2', clock.now());
          expect(await store.insert(repeat, limit, again)).toEqual({
            ok: true,
            value: { kind: 'key_taken', prior: { predictionId: first.id, fingerprint: 'fingerprint-1' } },
          });
          expect(await store.get(repeat.id)).toBeNull();
        }
        expect(await money()).toMatchObject({ available: 0, held: 30 });
      });

      it('takes a key again once its claim has expired', async () => {
        const { store, clock, owner } = await setUp();
        const first = startingPrediction({ owner, nowMs: clock.now(), holdKopecks: 10 });
        await store.insert(first, null, claimIdempotencyKey('key-2', 'fp', clock.now()));
        clock.advance((IDEMPOTENCY_WINDOW_SECONDS + 2) * 1000);
        const later = startingPrediction({ owner, nowMs: clock.now(), holdKopecks: 10 });
        const result = await store.insert(later, null, claimIdempotencyKey('key-2', 'fp', clock.now()));
        expect(result).toEqual({ ok: true, value: { kind: 'inserted' } });
        expect(await store.get(later.id)).toEqual(later);
      });
    });

    describe('replace', () => {
      it('writes only while the prediction is as it was read: status, attempts and claim', async () => {
        const { store, clock, owner, inserted } = await setUp();
        const created = await inserted(startingPrediction({ owner, nowMs: clock.now() }));
        const queued = moved(created, { type: 'queued', atMs: clock.now() });
        expect(await store.replace(queued, created)).toBe(true);
        // A stale read (status changed since).
        expect(await store.replace({ ...queued, logs: 'stale' }, created)).toBe(false);
        const claimed = moved(queued, { type: 'claimed', atMs: clock.now(), claim: 'claim-1' });
        expect(await store.replace(claimed, queued)).toBe(true);
        if (claimed.status !== 'processing') throw new Error('not processing');
        // Another claim, or another count of attempts, is another prediction.
        expect(await store.replace({ ...claimed, logs: 'x' }, { ...claimed, claim: 'claim-2' })).toBe(false);
        expect(await store.replace({ ...claimed, logs: 'x' }, { ...claimed, attempts: claimed.attempts + 1 })).toBe(
          false,
        );
        expect(await store.replace({ ...claimed, logs: 'x' }, claimed)).toBe(true);
        expect(await store.get(created.id)).toMatchObject({ status: 'processing', claim: 'claim-1', logs: 'x' });
      });

      it('is refused for a prediction that does not exist', async () => {
        const { store, clock, owner } = await setUp();
        const never = startingPrediction({ owner, nowMs: clock.now() });
        expect(await store.replace(moved(never, { type: 'queued', atMs: clock.now() }), never)).toBe(false);
      });

      it('charges the cost and releases the hold at the end, once', async () => {
        const { store, clock, owner, money, inserted } = await setUp();
        const created = await inserted(startingPrediction({ owner, nowMs: clock.now(), holdKopecks: 30 }));
        const running = processing(created, clock.now());
        expect(await store.replace(running, created)).toBe(true);
        clock.advance(10_000);
        const ended = succeeded(running, clock.now(), 7000);
        expect(ended.costKopecks).toBe(7);
        expect(await store.replace(ended, running)).toBe(true);
        expect(await money()).toEqual({ balance: 93, available: 93, held: 0, spent: 7 });
        // A repeated end from the same read fails and charges nothing.
        expect(await store.replace(ended, running)).toBe(false);
        expect(await money()).toEqual({ balance: 93, available: 93, held: 0, spent: 7 });
        expect(await store.get(created.id)).toEqual(ended);
      });

      it('gives the whole hold back for an end that cost nothing', async () => {
        const { store, clock, owner, money, inserted } = await setUp();
        const created = await inserted(startingPrediction({ owner, nowMs: clock.now(), holdKopecks: 30 }));
        expect(await store.replace(failedByWorkflow(created, clock.now()), created)).toBe(true);
        expect(await money()).toEqual({ balance: 100, available: 100, held: 0, spent: 0 });
      });
    });

    describe('retention', () => {
      it('reads an ended prediction without its data once that expired, and not at all once its record did', async () => {
        const { store, clock, owner, inserted } = await setUp();
        const created = await inserted(startingPrediction({ owner, nowMs: clock.now() }));
        const running = processing(created, clock.now());
        await store.replace(running, created);
        const ended = succeeded(running, clock.now());
        await store.replace(ended, running);
        const endedAt = clock.now();
        clock.set(endedAt + RETENTION_SECONDS * 1000 - 1);
        expect(await store.get(ended.id)).toEqual(ended);
        clock.set(endedAt + RETENTION_SECONDS * 1000);
        const kept = await store.get(ended.id);
        expect(kept).toMatchObject({
          status: 'succeeded',
          input: { kind: 'inline', value: {} },
          logs: '',
          dataRemoved: true,
        });
        expect(kept?.status === 'succeeded' && kept.output).toEqual({ kind: 'inline', value: null });
        expect((await store.listOwned(owner, { toward: 'older', limit: 10 })).predictions).toEqual([kept]);
        expect(await store.statusOf(ended.id)).toEqual({ status: 'succeeded', claim: null });
        clock.set(endedAt + (RETENTION_SECONDS + RECORD_KEPT_AFTER_DATA_SECONDS) * 1000);
        expect(await store.get(ended.id)).toBeNull();
        expect(await store.statusOf(ended.id)).toBeNull();
        expect((await store.listOwned(owner, { toward: 'older', limit: 10 })).predictions).toEqual([]);
      });

      it('removes the data once its time has come, once', async () => {
        const { store, clock, owner, inserted } = await setUp();
        const created = await inserted(startingPrediction({ owner, nowMs: clock.now() }));
        const ended = failedByWorkflow(created, clock.now());
        await store.replace(ended, created);
        const expiry = clock.now() + RETENTION_SECONDS * 1000;
        expect(await store.dataDue(expiry - 1, 100)).toEqual([]);
        expect(await store.removeData(ended.id, expiry - 1)).toBe(false);
        expect(await store.dataDue(expiry, 100)).toEqual([ended.id]);
        expect(await store.removeData(ended.id, expiry)).toBe(true);
        expect(await store.removeData(ended.id, expiry)).toBe(false);
        expect(await store.dataDue(expiry, 100)).toEqual([]);
        // Read before its expiry (by this clock), it is removed all the same.
        expect(await store.get(ended.id)).toMatchObject({
          status: 'failed',
          input: { kind: 'inline', value: {} },
          dataRemoved: true,
        });
      });

      it('keeps a large input as its reference through every write, and drops the reference with the data', async () => {
        const { store, clock, owner, inserted } = await setUp();
        const input = { kind: 'object', key: 'inputs/kept.json', bytes: 100_000 } as const;
        const created = await inserted({ ...startingPrediction({ owner, nowMs: clock.now() }), input });
        expect((await store.get(created.id))?.input).toEqual(input);
        const running = processing(created, clock.now());
        await store.replace(running, created);
        const ended = succeeded(running, clock.now());
        await store.replace(ended, running);
        expect(await store.get(ended.id)).toEqual(ended);
        expect((await store.listOwned(owner, { toward: 'older', limit: 10 })).predictions[0]?.input).toEqual(input);
        const expiry = clock.now() + RETENTION_SECONDS * 1000;
        expect(await store.removeData(ended.id, expiry)).toBe(true);
        expect((await store.get(ended.id))?.input).toEqual({ kind: 'inline', value: {} });
      });
    });

    describe('the sweeper’s index', () => {
      // The index is sharded: each shard gives its share of `limit`, so fewer may come back while more are due.
      it('gives the predictions whose time has come, the earliest first, at most `limit`', async () => {
        const { store, clock, owner, inserted } = await setUp({ balanceKopecks: 1000 });
        const created: Prediction[] = [];
        for (const n of [1, 2, 3]) {
          created.push(await inserted(startingPrediction({ owner, nowMs: clock.now(), id: idInShard('a', n) })));
          clock.advance(1000);
        }
        const dueAt = created.map((p) => p.sweepAtMs ?? Number.NaN);
        expect(dueAt.every(Number.isFinite)).toBe(true);
        expect(await store.due((dueAt[0] ?? 0) - 1, 100)).toEqual([]);
        expect(await store.due(dueAt[1] ?? 0, 100)).toEqual(created.slice(0, 2).map((p) => p.id));
        expect(await store.due(dueAt[2] ?? 0, 100)).toEqual(created.map((p) => p.id));
        const limited = await store.due(dueAt[2] ?? 0, 2);
        expect(limited.length).toBeGreaterThanOrEqual(1);
        expect(limited.length).toBeLessThanOrEqual(2);
        expect(limited[0]).toBe(created[0]?.id);
      });

      it('keeps an ended prediction there while it owes something, then for its data only', async () => {
        const { store, clock, owner, inserted } = await setUp();
        const created = await inserted(
          startingPrediction({ owner, nowMs: clock.now(), webhook: 'https://example.com/hook' }),
        );
        const running = processing(created, clock.now());
        await store.replace(running, created);
        const ended = succeeded(running, clock.now());
        expect(ended.effects).toEqual(['stop', 'notify']);
        await store.replace(ended, running);
        const owedAt = ended.sweepAtMs ?? Number.NaN;
        expect(await store.due(owedAt, 100)).toEqual([ended.id]);
        const halfDone = withEffectsDone(ended, ['stop']);
        await store.effectsDone(halfDone);
        expect(await store.get(ended.id)).toMatchObject({ effects: ['notify'], sweepAtMs: owedAt });
        expect(await store.due(owedAt, 100)).toEqual([ended.id]);
        await store.effectsDone(withEffectsDone(halfDone, ['notify']));
        expect(await store.get(ended.id)).toMatchObject({ effects: [], sweepAtMs: null });
        expect(await store.due(owedAt, 100)).toEqual([]);
        const expiry = clock.now() + RETENTION_SECONDS * 1000;
        expect(await store.dataDue(expiry, 100)).toEqual([ended.id]);
      });
    });

    describe('a run', () => {
      it('is recorded only under the current claim, while it runs', async () => {
        const { store, clock, owner, inserted } = await setUp();
        const created = await inserted(startingPrediction({ owner, nowMs: clock.now() }));
        const running = processing(created, clock.now(), 'claim-1');
        await store.replace(running, created);
        expect(await store.statusOf(created.id)).toEqual({ status: 'processing', claim: 'claim-1' });
        expect(await store.recordRun(created.id, 'claim-1', { progress: 1.5, logs: 'line\n', streamed: ['a'] })).toBe(
          true,
        );
        expect(await store.recordRun(created.id, 'claim-1', { logs: 'line\nmore\n' })).toBe(true);
        expect(await store.get(created.id)).toMatchObject({ progress: 1, logs: 'line\nmore\n', streamed: ['a'] });
        expect(await store.recordRun(created.id, 'claim-2', { progress: 0.5 })).toBe(false);
        const ended = succeeded(running, clock.now());
        await store.replace(ended, running);
        expect(await store.recordRun(created.id, 'claim-1', { progress: 0.5 })).toBe(false);
        expect(await store.get(created.id)).toEqual(ended);
      });

      it("has the sweeper's next look moved beside its records, only under the claim it was read with", async () => {
        const { store, clock, owner, inserted } = await setUp();
        const created = await inserted(startingPrediction({ owner, nowMs: clock.now() }));
        const running = processing(created, clock.now(), 'claim-1');
        await store.replace(running, created);
        expect(await store.recordRun(created.id, 'claim-1', { logs: 'written meanwhile\n' })).toBe(true);
        const later = clock.now() + 3_600_000;

        expect(await store.lookAgainAt(running, later)).toBe(true);

        expect(await store.get(created.id)).toMatchObject({ logs: 'written meanwhile\n', sweepAtMs: later });
        expect(await store.due(later - 1, 100)).toEqual([]);
        expect(await store.due(later, 100)).toEqual([created.id]);
        expect(await store.lookAgainAt(processing(created, clock.now(), 'claim-2'), later + 1)).toBe(false);
        await store.replace(succeeded(running, clock.now()), running);
        expect(await store.lookAgainAt(running, later + 1)).toBe(false);
      });
    });

    describe('listings', () => {
      it('lists what has not ended', async () => {
        const { store, clock, owner, inserted } = await setUp();
        const open = await inserted(startingPrediction({ owner, nowMs: clock.now() }));
        const closed = await inserted(startingPrediction({ owner, nowMs: clock.now() }));
        await store.replace(failedByWorkflow(closed, clock.now()), closed);
        const { predictions, unreadable } = await store.listActive();
        expect(predictions.map((p) => p.id)).toEqual([open.id]);
        expect(unreadable).toEqual([]);
      });

      it("pages through an account's own predictions, newest first, either way", async () => {
        const { store, clock, owner, inserted } = await setUp({ balanceKopecks: 1000 });
        const made: Prediction[] = [];
        for (let n = 0; n < 5; n++) {
          made.push(await inserted(startingPrediction({ owner, nowMs: clock.now() })));
          clock.advance(1000);
        }
        const stranger = freshOwner();
        const ids = (page: { predictions: readonly Prediction[] }) => page.predictions.map((p) => p.id);
        const newestFirst = [...made].reverse().map((p) => p.id);
        const first = await store.listOwned(owner, { toward: 'older', limit: 2 });
        expect(ids(first)).toEqual(newestFirst.slice(0, 2));
        expect(first.newer).toBeNull();
        if (!first.older) throw new Error('no next page');
        const second = await store.listOwned(owner, { toward: 'older', after: first.older, limit: 2 });
        expect(ids(second)).toEqual(newestFirst.slice(2, 4));
        if (!second.older || !second.newer) throw new Error('no pages either side');
        const last = await store.listOwned(owner, { toward: 'older', after: second.older, limit: 2 });
        expect(ids(last)).toEqual(newestFirst.slice(4));
        expect(last.older).toBeNull();
        const back = await store.listOwned(owner, { toward: 'newer', after: second.newer, limit: 2 });
        expect(ids(back)).toEqual(newestFirst.slice(0, 2));
        expect(back.newer).toBeNull();
        expect(await store.listOwned(stranger, { toward: 'older', limit: 10 })).toEqual({
          predictions: [],
          older: null,
          newer: null,
        });
      });

      it('filters by status and by creation time', async () => {
        const { store, clock, owner, inserted } = await setUp({ balanceKopecks: 1000 });
        const made: Prediction[] = [];
        for (let n = 0; n < 4; n++) {
          made.push(await inserted(startingPrediction({ owner, nowMs: clock.now() })));
          clock.advance(1000);
        }
        const [a, b, c, d] = made as [Prediction, Prediction, Prediction, Prediction];
        await store.replace(failedByWorkflow(b, clock.now()), b);
        await store.replace(failedByWorkflow(d, clock.now()), d);
        const ids = async (query: Parameters<PredictionStore['listOwned']>[1]) =>
          (await store.listOwned(owner, query)).predictions.map((p) => p.id);
        expect(await ids({ toward: 'older', status: 'failed', limit: 10 })).toEqual([d.id, b.id]);
        expect(await ids({ toward: 'older', status: 'starting', limit: 10 })).toEqual([c.id, a.id]);
        // A page that fills before its read ends goes on from its last prediction, not from the read's end.
        const firstFailed = await store.listOwned(owner, { toward: 'older', status: 'failed', limit: 1 });
        expect(firstFailed.predictions.map((p) => p.id)).toEqual([d.id]);
        if (!firstFailed.older) throw new Error('no next page');
        expect(await ids({ toward: 'older', status: 'failed', after: firstFailed.older, limit: 1 })).toEqual([b.id]);
        expect(
          await ids({ toward: 'older', createdAfter: b.createdAt, createdBefore: d.createdAt, limit: 10 }),
        ).toEqual([c.id, b.id]);
        expect(await ids({ toward: 'older', model: 'prognoz/none', limit: 10 })).toEqual([]);
        expect(await ids({ toward: 'older', model: a.model, createdBefore: b.createdAt, limit: 10 })).toEqual([a.id]);
      });
    });
  });
