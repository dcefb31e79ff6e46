/** Webhook delivery (interface: Webhooks): one attempt, then up to three retries with growing delays. */
export const RETRY_POLICY = {
  attemptTimeoutSeconds: 10,
  /** Seconds before retry 1, 2, 3 (a deployment may set others: WEBHOOK_SENDER_ENV.retryDelaysSeconds). */
  retryDelaysSeconds: [5, 30, 120],
  /** Messages per sender invocation; each may take up to the attempt timeout. */
  batchSize: 5,
} as const;

/** How long a rotated-out signing secret keeps signing next to the new one. */
export const SECRET_ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;
