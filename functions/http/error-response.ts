import type { APIGatewayProxyResult } from 'aws-lambda';
import type { ErrorCode, PrognozError } from '../../shared/domain/errors.ts';

/** The one mapping from domain error codes to HTTP statuses. */
export const HTTP_STATUS: Readonly<Record<ErrorCode, number>> = {
  invalid_json: 400,
  invalid_body: 400,
  invalid_header: 400,
  invalid_query: 400,
  malformed_authorization: 400,
  webhook_conflict: 400,
  missing_token: 401,
  insufficient_funds: 402,
  monthly_limit_reached: 402,
  invalid_token: 401,
  route_not_found: 404,
  model_not_found: 404,
  prediction_not_found: 404,
  file_not_found: 404,
  method_not_allowed: 405,
  prediction_finished: 409,
  webhook_not_dead_lettered: 409,
  // A worker's report on a run that was taken over, or an event the status does not allow:
  // these never come from a request, but the table stays exhaustive.
  claim_lost: 409,
  invalid_transition: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  invalid_input: 422,
  // The IETF Idempotency-Key draft: a key reused with another request body.
  idempotency_key_reused: 422,
  internal_error: 500,
};

/** Every error response has this shape: `{"error": {code, message, request_id, fields?}}`. */
export const errorResponse = (error: PrognozError, requestId: string): APIGatewayProxyResult => ({
  statusCode: HTTP_STATUS[error.code],
  headers: {
    'content-type': 'application/json',
    'x-request-id': requestId,
    ...(error.details.allow ? { allow: error.details.allow.join(', ') } : {}),
    ...(error.details.retryAfterSeconds !== undefined ? { 'retry-after': String(error.details.retryAfterSeconds) } : {}),
  },
  body: JSON.stringify({
    error: {
      code: error.code,
      message: error.message,
      request_id: requestId,
      ...(error.details.fields ? { fields: error.details.fields } : {}),
    },
    ...error.details.body,
  }),
});
