/** Webhook delivery (interface: Webhooks): one attempt, then up to three retries with growing delays. */
export const RETRY_POLICY = {
  attemptTimeoutSeconds: 10,
  /** Seconds before retry 1, 2, 3. */
  retryDelaysSeconds: [5, 30, 120],
  /** Messages per sender invocation; each may take up to the attempt timeout. */
  batchSize: 5,
} as const;

/**
 * The delays in force: the policy's, or `PROGNOZ_WEBHOOK_RETRY_DELAYS` (comma-separated seconds,
 * as many as the policy has retries), which the tests use to see all four attempts quickly.
 */
export const retryDelaysSeconds = (env: NodeJS.ProcessEnv = process.env): readonly number[] => {
  const configured = env.PROGNOZ_WEBHOOK_RETRY_DELAYS?.split(',').map(Number);
  if (!configured) return RETRY_POLICY.retryDelaysSeconds;
  if (
    configured.length !== RETRY_POLICY.retryDelaysSeconds.length ||
    configured.some((s) => !Number.isInteger(s) || s < 0 || s > 43_200)
  ) {
    throw new Error(
      `PROGNOZ_WEBHOOK_RETRY_DELAYS must be ${RETRY_POLICY.retryDelaysSeconds.length} whole numbers of seconds`,
    );
  }
  return configured;
};

/** How long a rotated-out signing secret keeps signing next to the new one. */
export const SECRET_ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;
