import type { APIGatewayProxyEvent } from 'aws-lambda';
import * as z from '../../shared/zod-mini.ts';
import { PrognozError } from '../../shared/domain/errors.ts';

export type ParsedBody =
  | { readonly kind: 'json'; readonly value: Record<string, unknown> }
  | { readonly kind: 'form'; readonly value: Record<string, string> };

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A body its schema refuses: `code`, with zod's issues as the error's fields. */
export const refusedBody = (
  code: 'invalid_body' | 'invalid_input',
  what: string,
  error: z.core.$ZodError,
): PrognozError =>
  new PrognozError(code, `the request body is not ${what}: ${z.prettifyError(error)}`, {
    fields: error.issues.map((issue) => ({ field: issue.path.join('.') || '(body)', message: issue.message })),
  });

/** Model inputs are small: files travel as URLs. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** JSON or form bodies, equivalent (interface: Requests); anything else is 415, a broken body 400, a huge one 413. */
export const parseBody = (event: APIGatewayProxyEvent): ParsedBody => {
  const mediaType = (event.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const raw =
    event.body === null ? '' : event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  if (Buffer.byteLength(raw, 'utf8') > MAX_BODY_BYTES) {
    throw new PrognozError('payload_too_large', `the body is over ${MAX_BODY_BYTES} bytes; pass files as http(s) URLs`);
  }
  if (mediaType === 'application/json' || mediaType.endsWith('+json')) {
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      throw new PrognozError('invalid_json', 'the body is not valid JSON');
    }
    if (!isPlainObject(value)) throw new PrognozError('invalid_body', 'the body must be a JSON object of model inputs');
    return { kind: 'json', value };
  }
  if (mediaType === 'application/x-www-form-urlencoded') {
    // Field names are the caller's: a Map, so that `__proto__` or `constructor` is a field like any other.
    const fields = new Map<string, string>();
    for (const [key, field] of new URLSearchParams(raw)) {
      if (fields.has(key)) throw new PrognozError('invalid_body', `the form field ${key} is given more than once`);
      fields.set(key, field);
    }
    return { kind: 'form', value: Object.fromEntries(fields) };
  }
  throw new PrognozError(
    'unsupported_media_type',
    mediaType === ''
      ? 'a Content-Type header is required: application/json or application/x-www-form-urlencoded'
      : `${mediaType} is not accepted; send application/json or application/x-www-form-urlencoded`,
  );
};
