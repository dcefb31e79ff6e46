import * as z from 'zod';
import { WEBHOOK_EVENTS } from '../domain/prediction.ts';

/**
 * The bodies of Replicate's create routes, which the handlers parse with these, and the grammar of
 * what requests carry beside a model's input; the OpenAPI document describes the headers and query
 * parameters from openapi/request-parameters.ts.
 */

export const MODEL_ID = /^[^/\s]+\/[^/\s]+$/;
/** `Idempotency-Key` as RFC 8941 §3.3.3 writes a string: printable ASCII in double quotes, `"` and `\` escaped by `\`. */
export const QUOTED_IDEMPOTENCY_KEY = /^"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\]){1,255})"$/;

const webhookField = z
  .string()
  .describe('An https URL to POST the prediction to as it changes. Also as the `Webhook-URL` header.');

/** `POST /models/{company}/{model}/predictions` (Replicate's). */
export const modelCreateBodySchema = z
  .object({
    input: z
      .record(z.string(), z.unknown())
      .default({})
      .describe("The model's input (see the model's `…Input` component)."),
    webhook: webhookField.optional(),
    webhook_events_filter: z
      .array(z.enum(WEBHOOK_EVENTS))
      .min(1)
      .nullish()
      .describe(
        'Which events are delivered: `completed` is the end; `start`, `output` and `logs` come while it runs. Default: every status change.',
      ),
  })
  .meta({
    id: 'CreatePredictionRequest',
    examples: [
      { input: { text: 'hello' }, webhook: 'https://example.com/hooks/prognoz', webhook_events_filter: ['completed'] },
    ],
  });

/** `POST /predictions` (Replicate's): the model named as the version. */
export const versionCreateBodySchema = modelCreateBodySchema
  .extend({
    version: z.string().regex(MODEL_ID).describe('The model as `company/model` (each model has one version).'),
  })
  .meta({ id: 'CreatePredictionByVersionRequest', examples: [{ version: 'prognoz/echo', input: { text: 'hello' } }] });
