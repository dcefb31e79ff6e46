import { permitsToTake, rateWindowAt } from '../domain/rate-windows.ts';
import type { RateCounter, RateLimiter, RateWindows } from '../ports/rate-limiter.ts';

/** What this instance holds of one set of counters in one window. */
interface Held {
  readonly window: number;
  /** Requests it was asked to count in this window, refused ones included. */
  asked: number;
  /** Requests the window has counted for this instance that no request has used yet. */
  unused: number;
  /** The window refused even one more: it will refuse every request until it ends (its counts only grow). */
  full: boolean;
  /** A reservation under way, which the requests that find nothing unused wait for rather than each reserving. */
  reserving: Promise<void> | null;
}

interface Entry {
  held: Held;
  /** Requests asked in the window before `held`'s, for the size of the next reservation. */
  askedBefore: number;
}

const heldIn = (window: number): Held => ({ window, asked: 0, unused: 0, full: false, reserving: null });

/**
 * The request rate limiter of one API instance (a function's execution environment, the local API
 * process): it counts its requests against the shared windows several at a time
 * (`permitsToTake`), one write for many requests when it is busy, and each request then takes one
 * of those here. Nothing is ever let through past a limit: the window counts every request before
 * any is let through. The cost is what an instance counted and did not use by the window's end,
 * which other instances cannot have: at most a sixteenth of the limit, and nothing at all for an
 * instance asked few requests, which counts them one at a time. A window that refused one request
 * refuses the rest of its second here without a write.
 */
export const instanceRateLimiter = (windows: RateWindows): RateLimiter => {
  const entries = new Map<string, Entry>();
  let latestWindow = 0;

  /** Forgets what belongs to windows over, once a second: the map holds only the sets asked lately. */
  const forgetBefore = (window: number) => {
    if (window <= latestWindow) return;
    latestWindow = window;
    for (const [key, entry] of entries) if (entry.held.window < window - 1) entries.delete(key);
  };

  /** What is held of `key` in `window`, or null for a request stamped in a window already left (a late clock). */
  const entryFor = (key: string, window: number): Entry | null => {
    const entry = entries.get(key);
    if (entry === undefined) {
      const fresh = { held: heldIn(window), askedBefore: 0 };
      entries.set(key, fresh);
      return fresh;
    }
    if (entry.held.window > window) return null;
    if (entry.held.window < window) {
      entry.askedBefore = entry.held.window === window - 1 ? entry.held.asked : 0;
      entry.held = heldIn(window);
    }
    return entry;
  };

  const reserve = async (entry: Entry, held: Held, scope: string, counters: readonly RateCounter[], nowMs: number) => {
    const smallestLimit = Math.min(...counters.map(({ limit }) => limit));
    const permits = permitsToTake(Math.max(entry.askedBefore, held.asked), smallestLimit);
    if (await windows.reserve(scope, counters, permits, nowMs)) held.unused += permits;
    else if (permits > 1 && (await windows.reserve(scope, counters, 1, nowMs))) held.unused += 1;
    else held.full = true;
  };

  return {
    async take(scope, counters, nowMs) {
      const { window, retryAfterSeconds } = rateWindowAt(nowMs);
      forgetBefore(window);
      const entry = entryFor(JSON.stringify([scope, counters]), window);
      // Counted on its own, apart from what is held for the window this instance is in now.
      if (entry === null) return { allowed: await windows.reserve(scope, counters, 1, nowMs), retryAfterSeconds };
      const { held } = entry;
      held.asked += 1;
      for (;;) {
        if (held.unused > 0) {
          held.unused -= 1;
          return { allowed: true, retryAfterSeconds };
        }
        if (held.full) return { allowed: false, retryAfterSeconds };
        held.reserving ??= reserve(entry, held, scope, counters, nowMs).finally(() => {
          held.reserving = null;
        });
        await held.reserving;
      }
    },
  };
};
