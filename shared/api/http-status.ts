import type { ErrorCode } from '../domain/errors.ts';

/** The one mapping from domain error codes to HTTP statuses. */
export const HTTP_STATUS: Readonly<Record<ErrorCode, number>> = {
  // What the edge answers before any handler: a request HTTP cannot parse, one too slow, headers too large.
  malformed_request: 400,
  request_timeout: 408,
  request_headers_too_large: 431,
  invalid_json: 400,
  invalid_body: 400,
  invalid_header: 400,
  invalid_query: 400,
  malformed_authorization: 400,
  webhook_conflict: 400,
  missing_token: 401,
  // Token self-service takes an owner's sign-in, never an API token: a leaked token must not mint more.
  owner_sign_in_required: 403,
  // Resizing a fleet is an operator's, never an account's: an account's token reads deployments only.
  operator_required: 403,
  insufficient_funds: 402,
  monthly_limit_reached: 402,
  invalid_token: 401,
  route_not_found: 404,
  model_not_found: 404,
  version_not_found: 404,
  deployment_not_found: 404,
  prediction_not_found: 404,
  file_not_found: 404,
  collection_not_found: 404,
  token_not_found: 404,
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
  // A deployment change the fleet cannot take (min above max, beyond the stack's cap), naming the field.
  invalid_configuration: 422,
  // The IETF Idempotency-Key draft: a key reused with another request body.
  idempotency_key_reused: 422,
  internal_error: 500,
};
