import type { PredictionId } from '../../../shared/domain/ids.ts';
import type { TerminalPrediction } from '../../../shared/domain/prediction.ts';
import {
  INBOX_KEEPS_BYTES,
  NOTICE_CARRIES_BYTES,
  type EndingInbox,
  type EndingInboxes,
  type EndingTeller,
} from '../../../shared/ports/ending-notices.ts';
import { answer } from './answer.ts';
import type { FakeClock } from './clock.ts';

interface Inbox {
  readonly madeAtMs: number;
  readonly receive: (ended: TerminalPrediction) => void;
}

/**
 * Ending notices in memory: the inboxes of any number of processes (`inbox()` is one process's),
 * the teller that reaches them, and the deployment's view of them all; waits run on the fake
 * clock. `vanish` removes an inbox as the sweeper would, so that a notice sent to it is lost.
 */
export const inMemoryEndingNotices = (clock: Pick<FakeClock, 'now' | 'sleep'>) => {
  const inboxes = new Map<string, Inbox>();
  let made = 0;
  /** The notices that reached no inbox. */
  const lost: { readonly address: string; readonly id: PredictionId }[] = [];

  /** One process's inbox; it keeps what notices carried up to `keepsBytes` (their JSON), the latest first. */
  const inbox = (keepsBytes = INBOX_KEEPS_BYTES): EndingInbox => {
    let address: string | null = null;
    // In the order the notices came: the oldest first.
    const noticed = new Map<PredictionId, { ended: TerminalPrediction | null; bytes: number }>();
    const wakers = new Map<PredictionId, Set<() => void>>();
    const receive = (ended: TerminalPrediction) => {
      // As a notice carries it: a copy, and none when too large.
      const json = JSON.stringify(ended);
      const bytes = Buffer.byteLength(json);
      noticed.delete(ended.id);
      noticed.set(
        ended.id,
        bytes <= NOTICE_CARRIES_BYTES
          ? { ended: JSON.parse(json) as TerminalPrediction, bytes }
          : { ended: null, bytes: 0 },
      );
      for (const wake of wakers.get(ended.id) ?? []) wake();
      let kept = [...noticed.values()].reduce((sum, notice) => sum + notice.bytes, 0);
      for (const notice of noticed.values()) {
        if (kept <= keepsBytes) break;
        kept -= notice.bytes;
        Object.assign(notice, { ended: null, bytes: 0 });
      }
    };
    return {
      address: () =>
        answer(() => {
          if (address === null || !inboxes.has(address)) {
            address = `memory://waiter-${++made}`;
            inboxes.set(address, { madeAtMs: clock.now(), receive });
          }
          return address;
        }),
      async waitFor(id, untilMs, signal) {
        if (noticed.has(id)) return noticed.get(id)?.ended ?? null;
        if (signal?.aborted) return null;
        const woken = new AbortController();
        const wake = () => woken.abort();
        wakers.set(id, (wakers.get(id) ?? new Set()).add(wake));
        const ended = signal ? AbortSignal.any([signal, woken.signal]) : woken.signal;
        await clock.sleep(untilMs - clock.now(), ended);
        wakers.get(id)?.delete(wake);
        return noticed.get(id)?.ended ?? null;
      },
    };
  };

  const teller: EndingTeller = {
    tell: (address, ended) =>
      answer(() => {
        const target = inboxes.get(address);
        if (target) target.receive(ended);
        else lost.push({ address, id: ended.id });
      }),
  };

  const all: EndingInboxes = {
    removeMadeBefore: (epochMs) =>
      answer(() => {
        const old = [...inboxes].filter(([, made]) => made.madeAtMs < epochMs).map(([address]) => address);
        for (const address of old) inboxes.delete(address);
        return old.length;
      }),
  };

  return {
    inbox,
    teller,
    inboxes: all,
    lost,
    vanish: (address: string) => {
      inboxes.delete(address);
    },
  };
};

export type InMemoryEndingNotices = ReturnType<typeof inMemoryEndingNotices>;
