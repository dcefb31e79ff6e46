export interface RateDecision {
  readonly allowed: boolean;
  /** Seconds until the window that refused the request ends. */
  readonly retryAfterSeconds: number;
}

/** One count a request is held to: its token's, its account's. */
export interface RateCounter {
  readonly key: string;
  readonly limit: number;
}

/** The port to request rates, as a request sees them. */
export interface RateLimiter {
  /**
   * Counts one request against each of `counters`, all kept together under `scope` (the
   * account: its tokens' counts and its own), in one step: either every counter is under its
   * limit and each counts the request, or none counts it and it is refused.
   */
  take(scope: string, counters: readonly RateCounter[], nowMs: number): Promise<RateDecision>;
}

/** The port to the one-second windows (shared/domain/rate-windows.ts), counted across every instance of the API. */
export interface RateWindows {
  /**
   * Counts `permits` requests at once against each of `counters` in the window `nowMs` falls in,
   * all kept together under `scope`: true when every counter had room for all of them and counts
   * them; false, counting none, when any counter had not.
   */
  reserve(scope: string, counters: readonly RateCounter[], permits: number, nowMs: number): Promise<boolean>;
}
