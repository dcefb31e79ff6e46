import * as z from '../zod-mini.ts';
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
  .check(z.describe('An https URL to POST the prediction to as it changes. Also as the `Webhook-URL` header.'));

const createFields = {
  input: z
    ._default(z.record(z.string(), z.unknown()), {})
    .check(z.describe("The model's input (see the model's `…Input` component).")),
  webhook: z.optional(webhookField),
  webhook_events_filter: z
    .nullish(z.array(z.enum(WEBHOOK_EVENTS)).check(z.minLength(1)))
    .check(
      z.describe(
        'Which events are delivered: `completed` is the end; `start`, `output` and `logs` come while it runs. Default: every status change.',
      ),
    ),
};

/** `POST /models/{company}/{model}/predictions` (Replicate's). */
export const modelCreateBodySchema = z.object(createFields).check(
  z.meta({
    id: 'CreatePredictionRequest',
    examples: [
      { input: { text: 'hello' }, webhook: 'https://example.com/hooks/prognoz', webhook_events_filter: ['completed'] },
    ],
  }),
);

/** `POST /predictions` (Replicate's): the model named as the version. */
export const versionCreateBodySchema = z
  .object({
    ...createFields,
    version: z
      .string()
      .check(z.regex(MODEL_ID), z.describe('The model as `company/model` (each model has one version).')),
  })
  .check(
    z.meta({
      id: 'CreatePredictionByVersionRequest',
      examples: [{ version: 'prognoz/echo', input: { text: 'hello' } }],
    }),
  );
