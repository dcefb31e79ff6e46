import * as z from 'zod';
import { CANCEL_AFTER_FORMAT, MAX_CANCEL_AFTER_SECONDS, MIN_CANCEL_AFTER_SECONDS } from '../../domain/deadline.ts';
import { ACTIVE_STATUSES, TERMINAL_STATUSES } from '../../domain/prediction.ts';
import { REQUEST_ID_FORMAT } from '../request-id.ts';
import { MODEL_ID, QUOTED_IDEMPOTENCY_KEY } from '../request-schemas.ts';
import { SYNC_WAIT } from '../routes.ts';

/*
 * The headers and query parameters of the API's requests, and the upload's form, as the OpenAPI
 * document describes them. The handlers parse these beside them (their grammar is owned by the
 * parsers in functions/http), so no function builds them at its start (bench §4).
 */

/** Headers any request may carry. */
export const commonHeadersSchema = z.object({
  'x-request-id': z
    .string()
    .regex(REQUEST_ID_FORMAT)
    .optional()
    .describe(
      'Your id for this request (1–200 printable ASCII characters), echoed in `x-request-id` and in errors; a new UUID when absent.',
    ),
});

/** Headers of an authenticated request. */
export const authenticatedHeadersSchema = commonHeadersSchema.extend({
  'x-log-request': z
    .enum(['true', 'false'])
    .optional()
    .describe(
      '`true` keeps this request (headers less Authorization, and body) for a week under its request id, for diagnosis.',
    ),
});

/** 1 to SYNC_WAIT.maxSeconds (60). */
const WAIT_SECONDS_PATTERN = '([1-9]|[1-5][0-9]|60)';
const waitSeconds = `whole seconds, 1–${SYNC_WAIT.maxSeconds} (default ${SYNC_WAIT.defaultSeconds})`;

/**
 * Headers of the create routes (interface: Requests); names as HTTP writes them (they are
 * case-insensitive: the handlers read them lower-cased).
 */
export const createHeadersSchema = authenticatedHeadersSchema.extend({
  Prefer: z
    .string()
    .regex(new RegExp(`^(SYNC|sync|ASYNC|async|wait|wait=${WAIT_SECONDS_PATTERN})$`))
    .optional()
    .describe(
      `\`wait\` (or \`SYNC\`) answers when the prediction ends or the wait runs out; \`wait=N\` waits N ${waitSeconds}; \`ASYNC\` (the default) answers at once. Case-insensitive; other preferences are ignored (RFC 7240).`,
    )
    .meta({ examples: ['wait', 'wait=10', 'ASYNC'] }),
  'Request-Timeout': z
    .string()
    .regex(new RegExp(`^${WAIT_SECONDS_PATTERN}$`))
    .optional()
    .describe(`How long a synchronous create waits: ${waitSeconds}.`)
    .meta({ examples: ['10'] }),
  'Webhook-URL': z
    .url()
    .regex(/^https:\/\//)
    .optional()
    .describe(
      'The webhook address (or the body field `webhook`, or `X-Webhook-URL`); two different ones are a 400 webhook_conflict.',
    ),
  'X-Webhook-URL': z
    .url()
    .regex(/^https:\/\//)
    .optional()
    .describe('As `Webhook-URL`.'),
  'Idempotency-Key': z
    .string()
    // The quoted form (a bare value is taken too).
    .regex(QUOTED_IDEMPOTENCY_KEY)
    .optional()
    .describe(
      'IETF Idempotency-Key: a quoted string of 1–255 printable ASCII characters. A repeat within a day answers the first prediction (with `Idempotent-Replayed: true`); the same key with another body is 422.',
    )
    .meta({ examples: ['"8e03978e-40d5-43e8-bc93-6894a57f9324"'] }),
  'Cancel-After': z
    .string()
    .regex(CANCEL_AFTER_FORMAT)
    .optional()
    .describe(
      `Cancels the prediction if it has not ended by then: a duration such as 30s, 5m or 1h30m, or whole seconds; ${MIN_CANCEL_AFTER_SECONDS} s to ${MAX_CANCEL_AFTER_SECONDS / 86_400} days.`,
    )
    .meta({ examples: ['5m'] }),
});

/** `GET /predictions`'s query (shared/api/prediction-list.ts parses it). Unknown parameters are ignored; an empty one counts as none. */
export const listQuerySchema = z.object({
  created_after: z
    .string()
    .optional()
    .describe('At or after this ISO 8601 date or date-time (no zone: UTC).')
    .meta({ examples: ['2026-11-01T00:00:00Z'] }),
  created_before: z
    .string()
    .optional()
    .describe('Before this ISO 8601 date or date-time.')
    .meta({ examples: ['2026-12-01'] }),
  model: z.string().regex(MODEL_ID).optional().describe('Only this model, as `company/model`.'),
  status: z.enum([...ACTIVE_STATUSES, ...TERMINAL_STATUSES]).optional(),
  cursor: z.string().optional().describe('Where a page starts: take it from `next` or `previous` as it is.'),
});

/** `GET /webhooks/default/deliveries`. */
export const deliveriesQuerySchema = z.object({
  cursor: z.string().optional().describe('Where a page starts: take it from `next` as it is.'),
});

/** `POST /files`: multipart/form-data as Replicate's API and clients send it. */
export const uploadFormSchema = z
  .object({
    content: z.string().meta({ format: 'binary' }).describe('The file, as a file part (with a filename).'),
    filename: z.string().max(1024).optional().describe("Its name; default: the part's filename."),
    type: z.string().optional().describe("Its media type; default: the part's, else application/octet-stream."),
    metadata: z.string().optional().describe('A JSON object kept with the file (at most 64 KiB).'),
  })
  .meta({ id: 'FileUpload' });

/** The stream's capability key, from the prediction's `urls.stream`. */
export const streamQuerySchema = z.object({
  key: z.string().describe("The prediction's stream key, as `urls.stream` carries it."),
});

/** An output file's capability key, as its URL in the prediction's output carries it. */
export const outputFileQuerySchema = z.object({
  key: z.string().describe("The prediction's files key, as the file's URL carries it."),
});
