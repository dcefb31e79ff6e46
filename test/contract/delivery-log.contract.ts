import { describe, expect, it } from 'vitest';
import { newPredictionId, type AccountId } from '../../shared/domain/ids.ts';
import { RECORD_KEPT_AFTER_DATA_SECONDS } from '../../shared/domain/retention.ts';
import type { DeliveryLog, NewDeliveryAttempt } from '../../shared/ports/delivery-log.ts';
import { T0 } from '../support/in-memory/clock.ts';
import { freshOwner, MODEL } from '../support/predictions.ts';

/** A log whose attempts are kept for `retentionSeconds` and then as long as an ended prediction's record. */
export type MakeDeliveryLog = (retentionSeconds: number) => Promise<DeliveryLog>;

const RETENTION_SECONDS = 3600;

const attemptAt = (atMs: number, outcome: NewDeliveryAttempt['outcome'], attempt = 1): NewDeliveryAttempt => ({
  webhookId: 'webhook-1',
  event: 'succeeded',
  attempt,
  atMs,
  durationMs: 120,
  statusCode: outcome === 'delivered' ? 204 : 500,
  error: null,
  outcome,
});

const predictionOf = (owner: AccountId) => ({ id: newPredictionId(), owner, model: MODEL });

/** What every DeliveryLog does, whatever keeps the attempts. */
export const describeDeliveryLogContract = (name: string, make: MakeDeliveryLog) =>
  describe(`${name}: the delivery log`, () => {
    it("lists a prediction's attempts, oldest first", async () => {
      const log = await make(RETENTION_SECONDS);
      const prediction = predictionOf(freshOwner());
      await log.record(prediction, attemptAt(T0 + 5000, 'failed', 2));
      await log.record(prediction, attemptAt(T0, 'failed', 1));
      await log.record(predictionOf(prediction.owner), attemptAt(T0, 'delivered'));
      const listed = await log.list(prediction.id);
      expect(listed).toEqual([
        { ...attemptAt(T0, 'failed', 1), id: expect.any(String) as unknown },
        { ...attemptAt(T0 + 5000, 'failed', 2), id: expect.any(String) as unknown },
      ]);
      expect(new Set(listed.map((attempt) => attempt.id)).size).toBe(2);
      expect(await log.list(newPredictionId())).toEqual([]);
    });

    it('gives a dead-lettered attempt to one redelivery at a time', async () => {
      const log = await make(RETENTION_SECONDS);
      const prediction = predictionOf(freshOwner());
      await log.record(prediction, attemptAt(T0, 'failed', 3));
      await log.record(prediction, attemptAt(T0 + 1000, 'dead_lettered', 4));
      const [failed, dead] = await log.list(prediction.id);
      if (!failed || !dead) throw new Error('attempts missing');
      expect(await log.claimRedelivery(prediction.id, failed, T0 + 2000)).toBe(false);
      expect(await log.claimRedelivery(prediction.id, dead, T0 + 2000)).toBe(true);
      expect(await log.claimRedelivery(prediction.id, dead, T0 + 3000)).toBe(false);
      await log.releaseRedelivery(prediction.id, dead);
      expect(await log.claimRedelivery(prediction.id, dead, T0 + 4000)).toBe(true);
      const elsewhere = { ...dead, id: '00000000-0000-4000-8000-000000000000' };
      expect(await log.claimRedelivery(prediction.id, elsewhere, T0 + 5000)).toBe(false);
      await log.releaseRedelivery(prediction.id, elsewhere);
    });

    it("pages through an account's attempts, newest first, while they are kept", async () => {
      const log = await make(RETENTION_SECONDS);
      const owner = freshOwner();
      const [one, two] = [predictionOf(owner), predictionOf(owner)];
      await log.record(one, attemptAt(T0, 'failed'));
      await log.record(two, attemptAt(T0 + 1000, 'delivered'));
      await log.record(one, attemptAt(T0 + 2000, 'delivered', 2));
      await log.record(predictionOf(freshOwner()), attemptAt(T0 + 1500, 'delivered'));
      const first = await log.listForAccount(owner, { before: null, limit: 2, nowMs: T0 + 3000 });
      expect(first.attempts.map((attempt) => [attempt.predictionId, attempt.atMs, attempt.model])).toEqual([
        [one.id, T0 + 2000, MODEL],
        [two.id, T0 + 1000, MODEL],
      ]);
      if (first.older === null) throw new Error('no next page');
      const second = await log.listForAccount(owner, { before: first.older, limit: 2, nowMs: T0 + 3000 });
      expect(second.attempts.map((attempt) => attempt.atMs)).toEqual([T0]);
      expect(second.older).toBeNull();
      // The first attempt's record expires first: the retention period, then what a record outlives its data by.
      const keptMs = (RETENTION_SECONDS + RECORD_KEPT_AFTER_DATA_SECONDS) * 1000;
      const later = await log.listForAccount(owner, { before: null, limit: 10, nowMs: T0 + keptMs });
      expect(later.attempts.map((attempt) => attempt.atMs)).toEqual([T0 + 2000, T0 + 1000]);
    });
  });
