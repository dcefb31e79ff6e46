import * as z from 'zod';
import type { ZodOpenApiPathItemObject } from 'zod-openapi';
import { predictionViewSchema } from '../prediction-view-schema.ts';

/** What a webhook delivery carries (interface: Webhooks): the prediction as GET shows it, less `cost`. */
export const webhookBodySchema = predictionViewSchema.omit({ cost: true }).meta({ id: 'PredictionWebhook' });

const signedContent = '`<webhook id>.<timestamp>.<raw body>`';

const deliveryHeaders = z.object({
  'x-webhook-id': z
    .string()
    .describe('The delivery: the same on every retry of one event, so receivers can skip repeats.'),
  'x-webhook-timestamp': z
    .string()
    .regex(/^\d+$/)
    .describe('When this attempt was sent, in Unix seconds: reject one far from your clock.'),
  'x-webhook-signature': z
    .string()
    .describe(
      `Base64 of HMAC-SHA256 over ${signedContent}, keyed with the signing secret exactly as shown (\`whsec_…\`). Compare whole, in constant time.`,
    ),
  'webhook-id': z.string().describe('Standard Webhooks: as `x-webhook-id`.'),
  'webhook-timestamp': z.string().regex(/^\d+$/).describe('Standard Webhooks: as `x-webhook-timestamp`.'),
  'webhook-signature': z
    .string()
    .describe(
      `Standard Webhooks: \`v1,<base64>\`, HMAC-SHA256 over ${signedContent} keyed with the base64-decoded part of the secret after \`whsec_\` — what the common verifier libraries check. During a rotation, space-separated, one by each secret.`,
    ),
  'user-agent': z.string().describe('`prognoz-webhooks/1`.'),
});

/** `webhooks.prediction`: what prognoz sends to a prediction's webhook. */
export const webhookPathItem: ZodOpenApiPathItemObject = {
  post: {
    operationId: 'predictionWebhook',
    summary: 'A prediction changed',
    description:
      'Sent when the prediction starts, ends, and (when `webhook_events_filter` asks) as output and logs arrive. A 2xx answer within 10 s acknowledges it; anything else is retried (4 attempts in all), then dead-lettered (see the delivery log and redeliver).',
    requestParams: { header: deliveryHeaders },
    requestBody: { required: true, content: { 'application/json': { schema: webhookBodySchema } } },
    responses: {
      '200': { description: 'Acknowledged (any 2xx).' },
    },
  },
};
