/** Request rates are counted in fixed one-second windows. */
const RATE_WINDOW_MS = 1000;

/** The one-second window `nowMs` falls in, and the whole seconds (at least 1) until it ends. */
export const rateWindowAt = (nowMs: number): { readonly window: number; readonly retryAfterSeconds: number } => {
  const window = Math.floor(nowMs / RATE_WINDOW_MS);
  return { window, retryAfterSeconds: Math.max(1, Math.ceil(((window + 1) * RATE_WINDOW_MS - nowMs) / 1000)) };
};

/**
 * A window has room for `permits` more requests on a counter while its count is below this: the
 * last of them would then be let in one at a time (a count under the limit, which may be a
 * fraction). At zero or below, not even an empty window has room for them.
 */
export const roomWhileBelow = (limit: number, permits: number): number => limit - permits + 1;

/** An instance holds at most this share of a limit at once, taken and not yet used. */
const MOST_OF_A_LIMIT = 1 / 16;
/** It takes about this share of what it was asked in the window before (it will likely be asked as much again). */
const SHARE_OF_DEMAND = 1 / 4;

/**
 * How many requests an API instance counts at once against a window (one write for several of its
 * requests): a quarter of what it was asked in the window before or in this one so far, whichever
 * is more, and at most a sixteenth of the smallest limit it is held to; one when it has little to
 * go on. What it counts and then does not use is lost to the window's other instances, so this
 * bounds what a busy instance can refuse to others to a sixteenth of the limit, and an instance
 * asked little takes one at a time, exactly as before.
 */
export const permitsToTake = (asked: number, smallestLimit: number): number =>
  Math.max(1, Math.min(Math.floor(asked * SHARE_OF_DEMAND), Math.floor(smallestLimit * MOST_OF_A_LIMIT)));
