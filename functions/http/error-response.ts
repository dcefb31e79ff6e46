import type { APIGatewayProxyResult } from 'aws-lambda';
import type { ErrorBody } from '../../shared/api/error-body-schema.ts';
import { HTTP_STATUS } from '../../shared/api/http-status.ts';
import type { PrognozError } from '../../shared/domain/errors.ts';

/** Every error response has this shape: `{"error": {code, message, request_id, fields?}}`. */
export const errorResponse = (error: PrognozError, requestId: string): APIGatewayProxyResult => ({
  statusCode: HTTP_STATUS[error.code],
  headers: {
    'content-type': 'application/json',
    'x-request-id': requestId,
    ...(error.details.allow ? { allow: error.details.allow.join(', ') } : {}),
    ...(error.details.retryAfterSeconds !== undefined
      ? { 'retry-after': String(error.details.retryAfterSeconds) }
      : {}),
  },
  body: JSON.stringify(errorBody(error, requestId)),
});

const errorBody = (error: PrognozError, requestId: string): ErrorBody & Readonly<Record<string, unknown>> => ({
  error: {
    code: error.code,
    message: error.message,
    request_id: requestId,
    ...(error.details.fields ? { fields: [...error.details.fields] } : {}),
  },
  ...error.details.body,
});
