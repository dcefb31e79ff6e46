import * as z from 'zod';
import { RETRY_POLICY } from '../workflow/webhook-policy.ts';
import { parseEnvironment, retentionSecondsOf, SHARED_ENV, VALUES, type Environment } from './environment.ts';

/** The variables of the webhook sender (functions/webhooks/send-webhooks.ts). */
export const WEBHOOK_SENDER_ENV = {
  tableName: SHARED_ENV.tableName,
  /** The queue it takes its messages from, and on which it hides a failed one until its retry. */
  webhookQueueUrl: SHARED_ENV.webhookQueueUrl,
  outputBucket: SHARED_ENV.outputBucket,
  retentionDays: SHARED_ENV.retentionDays,
  allowLoopback: SHARED_ENV.allowLoopback,
  /**
   * The delays between attempts, as comma-separated seconds, as many as the policy has retries;
   * the policy's when unset. The tests set short ones to see all four attempts quickly.
   */
  retryDelays: 'PROGNOZ_WEBHOOK_RETRY_DELAYS',
} as const;

const RETRIES = RETRY_POLICY.retryDelaysSeconds.length;
/** Half a day: SQS hides a message for at most twelve hours. */
const MAX_DELAY_SECONDS = 43_200;

const retryDelays = z
  .string()
  .transform((text) => text.split(',').map(Number))
  .pipe(z.array(z.number().int().min(0).max(MAX_DELAY_SECONDS)).length(RETRIES))
  .optional()
  .transform((delays): readonly number[] => delays ?? RETRY_POLICY.retryDelaysSeconds);

export const webhookSenderEnvironment = z.object({
  [WEBHOOK_SENDER_ENV.tableName]: VALUES.name,
  [WEBHOOK_SENDER_ENV.webhookQueueUrl]: VALUES.url,
  [WEBHOOK_SENDER_ENV.outputBucket]: VALUES.name,
  [WEBHOOK_SENDER_ENV.retentionDays]: VALUES.retentionDays,
  [WEBHOOK_SENDER_ENV.allowLoopback]: VALUES.flag,
  [WEBHOOK_SENDER_ENV.retryDelays]: retryDelays,
});

export interface WebhookSenderConfig {
  readonly tableName: string;
  readonly webhookQueueUrl: string;
  readonly outputBucket: string;
  /** How long the delivery log is kept: as long as predictions are. */
  readonly retentionSeconds: number;
  readonly allowLoopback: boolean;
  /** Seconds before retry 1, 2, 3. */
  readonly retryDelaysSeconds: readonly number[];
}

export const webhookSenderConfigFromEnv = (env: Environment): WebhookSenderConfig => {
  const parsed = parseEnvironment('webhook sender', webhookSenderEnvironment, env);
  return {
    tableName: parsed[WEBHOOK_SENDER_ENV.tableName],
    webhookQueueUrl: parsed[WEBHOOK_SENDER_ENV.webhookQueueUrl],
    outputBucket: parsed[WEBHOOK_SENDER_ENV.outputBucket],
    retentionSeconds: retentionSecondsOf(parsed[WEBHOOK_SENDER_ENV.retentionDays]),
    allowLoopback: parsed[WEBHOOK_SENDER_ENV.allowLoopback],
    retryDelaysSeconds: parsed[WEBHOOK_SENDER_ENV.retryDelays],
  };
};
