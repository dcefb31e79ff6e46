/** Webhook delivery (spec §6.5, DESIGN §6): one attempt, then up to three retries with growing delays. */
export const RETRY_POLICY = {
  attemptTimeoutSeconds: 10,
  /** Seconds before retry 1, 2, 3. */
  retryDelaysSeconds: [5, 30, 120],
  /** Messages per sender invocation; each may take up to the attempt timeout. */
  batchSize: 5,
} as const;
