import * as z from 'zod';

/** The path parameters the operations share (operations.ts, read-api-operations.ts). */

export const predictionId = z.object({ id: z.string().describe('The prediction id.') });
export const fileId = z.object({ id: z.string().describe('The file id.') });
/** A company named `predictions` or `files` is taken by those routes (405 or 404 there). */
export const modelPath = z.object({
  company: z
    .string()
    .describe('The company of `{company}/{model}`.')
    .meta({ examples: ['prognoz'] }),
  model: z
    .string()
    .describe('The model of `{company}/{model}`.')
    .meta({ examples: ['echo'] }),
});
