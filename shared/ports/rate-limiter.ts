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

/** The port to request rates, counted across every instance of the API. */
export interface RateLimiter {
  /**
   * Counts one request against each of `counters`, all kept together under `scope` (the
   * account: its tokens' counts and its own), in one step: either every counter is under its
   * limit and each counts the request, or none counts it and it is refused.
   */
  take(scope: string, counters: readonly RateCounter[], nowMs: number): Promise<RateDecision>;
}
