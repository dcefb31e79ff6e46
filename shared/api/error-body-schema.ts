import * as z from 'zod';
import { ERROR_CODES } from '../domain/errors.ts';

/* The error bodies as zod schemas, for the OpenAPI document: error-response.ts writes them without it. */

/** Every error response has this shape (functions/http/error-response.ts writes it). */
export const errorBodySchema = z
  .object({
    error: z.object({
      code: z.enum(ERROR_CODES).describe('Stable and machine-readable: branch on this, not on the message.'),
      message: z.string().describe('For people; may change.'),
      request_id: z.string().describe('Quote it when asking about this request (also the `x-request-id` header).'),
      fields: z
        .array(z.object({ field: z.string().describe('Dotted path of the failing input field.'), message: z.string() }))
        .optional()
        .describe('Each input field that failed validation (422 invalid_input).'),
    }),
  })
  .meta({ id: 'Error' });

export type ErrorBody = z.infer<typeof errorBodySchema>;

/** `409 prediction_finished` on a cancel: the error and the prediction as it ended. */
export const predictionFinishedBodySchema = (prediction: z.ZodType) =>
  errorBodySchema
    .extend({ prediction: prediction.describe('The prediction as it ended.') })
    .meta({ id: 'PredictionFinishedError' });
