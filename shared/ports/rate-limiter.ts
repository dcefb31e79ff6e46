export interface RateDecision {
  readonly allowed: boolean;
  /** Seconds until the window that refused the request ends. */
  readonly retryAfterSeconds: number;
}

/** The port to request rates, counted across every instance of the API. */
export interface RateLimiter {
  /**
   * Counts one request against each key's window in order, stopping at the first that refuses
   * it: a window never counts a request that an earlier one refused (the account's window does
   * not count what the token's refused).
   */
  take(buckets: readonly { key: string; limit: number }[], nowMs: number): Promise<RateDecision>;
}
