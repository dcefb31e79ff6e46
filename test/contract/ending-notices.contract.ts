import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { newPredictionId, type PredictionId } from '../../shared/domain/ids.ts';
import type { TerminalPrediction } from '../../shared/domain/prediction.ts';
import {
  NOTICE_CARRIES_BYTES,
  type EndingInbox,
  type EndingInboxes,
  type EndingTeller,
} from '../../shared/ports/ending-notices.ts';
import { freshOwner, processing, startingPrediction, succeeded } from '../support/predictions.ts';

export interface EndingNoticesHarness {
  /** A new process's inbox; it keeps what notices carried up to `keepsBytes` (INBOX_KEEPS_BYTES when absent). */
  readonly inbox: (keepsBytes?: number) => EndingInbox;
  readonly teller: EndingTeller;
  readonly inboxes: EndingInboxes;
  /** Removes the inbox at `address`, as the sweeper does. */
  readonly vanish: (address: string) => Promise<void>;
  /** The time the adapters read (epoch ms). */
  readonly now: () => number;
  /** Lets `ms` pass for the waits. */
  readonly elapse: (ms: number) => Promise<void>;
  /** Moves the clock on with no wait pending: inboxes made after are that much younger. */
  readonly later: (ms: number) => void;
}

export type MakeEndingNotices = () => Promise<EndingNoticesHarness>;

/** `id` ended: succeeded, its logs `logs`. */
const endedAs = (id: PredictionId, logs = 'ran'): TerminalPrediction => {
  const nowMs = Date.parse('2026-11-27T12:00:00Z');
  const ended = succeeded(processing(startingPrediction({ id, owner: freshOwner(), nowMs }), nowMs), nowMs + 5000);
  return { ...ended, logs };
};

/** A deadline no wait of these tests reaches unless it is not woken: the test's own timeout comes first. */
const FAR_MS = 120_000;

/** Repeats `check` until it holds, at most `attempts` times a few ms apart. */
const eventually = async (check: () => Promise<boolean>, attempts = 200): Promise<void> => {
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (await check()) return;
    await sleep(10);
  }
  throw new Error('the condition never held');
};

/** What every ending-notices adapter does, whatever carries the notices. */
export const describeEndingNoticesContract = (name: string, make: MakeEndingNotices) =>
  describe(`${name}: ending notices`, () => {
    it("gives a process one address, made at the first call and kept; another process's is another", async () => {
      const { inbox } = await make();
      const mine = inbox();
      const address = await mine.address();
      expect(await mine.address()).toBe(address);
      expect(await inbox().address()).not.toBe(address);
    });

    it('ends a wait when the notice for its id arrives, and not for a notice of another id', async () => {
      const { inbox, teller, now } = await make();
      const waiter = inbox();
      const address = await waiter.address();
      const [id, other] = [newPredictionId(), newPredictionId()];
      const untilMs = now() + FAR_MS;
      let otherEnded = false;
      const otherWait = waiter.waitFor(other, now() + FAR_MS).then(() => {
        otherEnded = true;
      });
      const waiting = waiter.waitFor(id, untilMs);
      await teller.tell(address, endedAs(id));
      await waiting;
      expect(now()).toBeLessThan(untilMs);
      expect(otherEnded).toBe(false);
      await teller.tell(address, endedAs(other));
      await otherWait;
    });

    it('answers a wait with the prediction its notice carried, as it ended; one too large to carry with null', async () => {
      const { inbox, teller, now } = await make();
      const waiter = inbox();
      const address = await waiter.address();
      const small = endedAs(newPredictionId());
      const waiting = waiter.waitFor(small.id, now() + FAR_MS);
      await teller.tell(address, small);
      expect(await waiting).toEqual(small);
      // A later wait for it, after the notice came, gets it too.
      expect(await waiter.waitFor(small.id, now() + FAR_MS)).toEqual(small);
      const large = endedAs(newPredictionId(), 'x'.repeat(NOTICE_CARRIES_BYTES));
      const untilMs = now() + FAR_MS;
      const waitingLarge = waiter.waitFor(large.id, untilMs);
      await teller.tell(address, large);
      expect(await waitingLarge).toBeNull();
      expect(now()).toBeLessThan(untilMs);
    });

    it('keeps what the latest notices carried within its budget: a wait for an older one is answered null, at once', async () => {
      const { inbox, teller, now } = await make();
      const [oldest, older, newer, newest] = [1, 2, 3, 4].map(() => endedAs(newPredictionId(), 'x'.repeat(10_000))) as [
        TerminalPrediction,
        TerminalPrediction,
        TerminalPrediction,
        TerminalPrediction,
      ];
      // Room for two of them, whether the budget counts the message or the prediction's JSON.
      const waiter = inbox(25_000);
      const address = await waiter.address();
      const listening = waiter.waitFor(newest.id, now() + FAR_MS);
      for (const ended of [oldest, older, newer, newest]) await teller.tell(address, ended);
      expect(await listening).toEqual(newest);
      const untilMs = now() + FAR_MS;
      expect(await waiter.waitFor(newer.id, untilMs)).toEqual(newer);
      expect(await waiter.waitFor(oldest.id, untilMs)).toBeNull();
      expect(await waiter.waitFor(older.id, untilMs)).toBeNull();
      expect(now()).toBeLessThan(untilMs);
    });

    it('ends at once a wait whose notice came before it', async () => {
      const { inbox, teller, now } = await make();
      const waiter = inbox();
      const address = await waiter.address();
      const [first, second] = [newPredictionId(), newPredictionId()];
      // The process is listening (a wait is pending) when the other notice comes.
      const listening = waiter.waitFor(first, now() + FAR_MS);
      await teller.tell(address, endedAs(second));
      await teller.tell(address, endedAs(first));
      await listening;
      const untilMs = now() + FAR_MS;
      await waiter.waitFor(second, untilMs);
      expect(now()).toBeLessThan(untilMs);
    });

    it('ends a wait at its deadline when no notice comes, and at once when its signal aborts', async () => {
      const { inbox, now, elapse } = await make();
      const waiter = inbox();
      await waiter.address();
      const untilMs = now() + 300;
      const waiting = waiter.waitFor(newPredictionId(), untilMs);
      await elapse(300);
      await waiting;
      // Real timers may fire a millisecond early, by the wall clock.
      expect(now()).toBeGreaterThanOrEqual(untilMs - 5);

      const gone = new AbortController();
      const startedMs = now();
      const abandoned = waiter.waitFor(newPredictionId(), now() + FAR_MS, gone.signal);
      gone.abort();
      await abandoned;
      expect(now() - startedMs).toBeLessThan(FAR_MS);
      const aborted = new AbortController();
      aborted.abort();
      await waiter.waitFor(newPredictionId(), now() + FAR_MS, aborted.signal);
    });

    it('loses, without failing the teller, a notice to an inbox that vanished; its process makes a new one', async () => {
      const { inbox, teller, vanish, now } = await make();
      const waiter = inbox();
      const old = await waiter.address();
      await vanish(old);
      const id = newPredictionId();
      await expect(teller.tell(old, endedAs(id))).resolves.toBeUndefined();
      const untilMs = now() + FAR_MS;
      const waiting = waiter.waitFor(id, untilMs);
      await eventually(async () => (await waiter.address()) !== old);
      await teller.tell(await waiter.address(), endedAs(id));
      await waiting;
      expect(now()).toBeLessThan(untilMs);
    });

    it('removes the inboxes made before a time, and only those', async () => {
      const { inbox, teller, inboxes, now, later } = await make();
      const old = inbox();
      const oldAddress = await old.address();
      later(2 * 3600_000);
      const young = inbox();
      const youngAddress = await young.address();
      expect(await inboxes.removeMadeBefore(now() - 3600_000)).toBe(1);
      expect(await inboxes.removeMadeBefore(now() - 3600_000)).toBe(0);
      await expect(teller.tell(oldAddress, endedAs(newPredictionId()))).resolves.toBeUndefined();
      const id = newPredictionId();
      await teller.tell(youngAddress, endedAs(id));
      const untilMs = now() + FAR_MS;
      await young.waitFor(id, untilMs);
      expect(now()).toBeLessThan(untilMs);
    });
  });
