/**
 * The one error tree of prognoz. Domain errors carry a stable machine code and never an HTTP
 * status: the mapping to HTTP lives in one place at the edge (functions/http/error-response.ts).
 */
export const ERROR_CODES = [
  'malformed_request',
  'request_timeout',
  'request_headers_too_large',
  'invalid_json',
  'invalid_body',
  'invalid_header',
  'invalid_query',
  'malformed_authorization',
  'missing_token',
  'invalid_token',
  'route_not_found',
  'model_not_found',
  'version_not_found',
  'deployment_not_found',
  'prediction_not_found',
  'file_not_found',
  'collection_not_found',
  'token_not_found',
  'owner_sign_in_required',
  'operator_required',
  'method_not_allowed',
  'unsupported_media_type',
  'payload_too_large',
  'invalid_input',
  'invalid_configuration',
  'idempotency_key_reused',
  'webhook_conflict',
  'insufficient_funds',
  'monthly_limit_reached',
  'prediction_finished',
  'webhook_not_dead_lettered',
  'rate_limited',
  'claim_lost',
  'invalid_transition',
  'internal_error',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface FieldIssue {
  /** Dotted path of the failing input field, e.g. `sleep` or `file`. */
  readonly field: string;
  readonly message: string;
}

export class PrognozError extends Error {
  override readonly name = 'PrognozError';

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: {
      readonly fields?: readonly FieldIssue[];
      readonly allow?: readonly string[];
      /** Sent as `Retry-After` (429). */
      readonly retryAfterSeconds?: number;
      /** Extra JSON the client gets next to the error, e.g. the current prediction on 409. */
      readonly body?: Readonly<Record<string, unknown>>;
    } = {},
  ) {
    super(message);
  }
}

export const isPrognozError = (value: unknown): value is PrognozError => value instanceof PrognozError;
