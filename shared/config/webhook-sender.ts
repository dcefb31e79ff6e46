import * as z from '../zod-mini.ts';
import { RETRY_POLICY } from '../workflow/webhook-policy.ts';
import { defineEnvironment, SHARED, variable, type Environment } from './environment.ts';

const RETRIES = RETRY_POLICY.retryDelaysSeconds.length;
/** Half a day: SQS hides a message for at most twelve hours. */
const MAX_DELAY_SECONDS = 43_200;

/** The environment of the webhook sender (functions/webhooks/send-webhooks.ts). */
export const webhookSenderEnvironment = defineEnvironment('webhook sender', {
  tableName: SHARED.tableName,
  /** The queue it takes its messages from, and on which it hides a failed one until its retry. */
  webhookQueueUrl: SHARED.webhookQueueUrl,
  outputBucket: SHARED.outputBucket,
  /** How long the delivery log is kept: as long as predictions are. */
  retentionSeconds: SHARED.retentionSeconds,
  allowLoopback: SHARED.allowLoopback,
  /**
   * Seconds before retry 1, 2, 3: comma-separated, as many as the policy has retries; the
   * policy's when unset. The tests set short ones to see all four attempts quickly.
   */
  retryDelaysSeconds: variable(
    'PROGNOZ_WEBHOOK_RETRY_DELAYS',
    z.pipe(
      z.optional(
        z.pipe(
          z.pipe(
            z.string(),
            z.transform((text: string) => text.split(',').map(Number)),
          ),
          z.array(z.int().check(z.minimum(0), z.maximum(MAX_DELAY_SECONDS))).check(z.length(RETRIES)),
        ),
      ),
      z.transform((delays: number[] | undefined): readonly number[] => delays ?? RETRY_POLICY.retryDelaysSeconds),
    ),
  ),
});

export const WEBHOOK_SENDER_ENV = webhookSenderEnvironment.names;

export type WebhookSenderConfig = ReturnType<typeof webhookSenderConfigFromEnv>;

export const webhookSenderConfigFromEnv = (env: Environment) => webhookSenderEnvironment.parse(env);
