import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { PrognozError } from '../../shared/domain/errors.ts';

type HttpMiddleware = MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult>;

/**
 * Every value a header was sent with, under its lower-case name. API Gateway's `headers` keeps one
 * value of a repeated header; `multiValueHeaders` keeps them all, and may keep them under each
 * casing the client used: they are joined here, before the header normalizer (which would keep
 * one casing's values only).
 */
export const mergedHeaderValues = (): HttpMiddleware => ({
  before: ({ event }) => {
    const merged: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
    for (const [name, values] of Object.entries(event.multiValueHeaders ?? {})) {
      const key = name.toLowerCase();
      merged[key] = [...(merged[key] ?? []), ...(values ?? [])];
    }
    // A caller with only `headers` (an event built by hand) has one value of each.
    for (const [name, value] of Object.entries(event.headers ?? {})) {
      const key = name.toLowerCase();
      if (merged[key] === undefined && value !== undefined) merged[key] = [value];
    }
    event.multiValueHeaders = merged;
  },
});

/** Every value of header `name` (lower case), in the order sent (as mergedHeaderValues left them). */
export const headerValues = (event: APIGatewayProxyEvent, name: string): readonly string[] =>
  event.multiValueHeaders?.[name] ?? [];

/** The distinct values of header `name`, trimmed, blanks left out. */
export const distinctHeaderValues = (event: APIGatewayProxyEvent, name: string): readonly string[] =>
  [...new Set(headerValues(event, name).map((value) => value.trim()))].filter((value) => value !== '');

/**
 * Headers the API reads as one value. Sent twice with different values, a request is ambiguous
 * (RFC 9110 §5.3: only list-valued fields may repeat), and which one a proxy keeps is not the
 * caller's to guess: 400. The webhook headers have their own error (webhook_conflict).
 */
const SINGLE_VALUED = [
  'authorization',
  'content-type',
  'idempotency-key',
  'request-timeout',
  'cancel-after',
  'x-request-id',
  'x-log-request',
] as const;

export const singleValuedHeaders = (): HttpMiddleware => ({
  before: ({ event }) => {
    for (const name of SINGLE_VALUED) {
      if (distinctHeaderValues(event, name).length > 1)
        throw new PrognozError('invalid_header', `the ${name} header is sent more than once with different values`);
    }
  },
});
