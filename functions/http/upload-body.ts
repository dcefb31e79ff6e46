import type { APIGatewayProxyEvent } from 'aws-lambda';
import { AWS_UPLOAD_LIMIT_NOTE, MAX_UPLOAD_BYTES, MULTIPART_OVERHEAD_BYTES } from '../../shared/api/uploads.ts';
import { PrognozError } from '../../shared/domain/errors.ts';

/** A file upload as Replicate's API and its clients send it, read from the request. */
export interface Upload {
  readonly content: Uint8Array;
  readonly name: string;
  readonly contentType: string;
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** Metadata rides in the file's table item, which DynamoDB caps at 400 KB. */
export const MAX_METADATA_BYTES = 64 * 1024;
const MAX_NAME_LENGTH = 1024;
const MEDIA_TYPE = /^[\w.+-]+\/[\w.+-]+(\s*;.*)?$/;
const DEFAULT_CONTENT_TYPE = 'application/octet-stream';

const invalid = (message: string) => new PrognozError('invalid_body', message);

const tooLarge = (event: APIGatewayProxyEvent, what: string) => {
  // A base64 event came through API Gateway's binary media types: say what its own limits allow.
  const onAws = event.isBase64Encoded ? `; ${AWS_UPLOAD_LIMIT_NOTE}` : '';
  return new PrognozError(
    'payload_too_large',
    `${what}, over the ${MAX_UPLOAD_BYTES}-byte (100 MiB) limit of an upload${onAws}`,
  );
};

/** API Gateway base64-encodes bodies of its binary media types (multipart/form-data among them). */
const bodyBytes = (event: APIGatewayProxyEvent): Buffer =>
  event.body === null ? Buffer.alloc(0) : Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');

/** Parsed by the platform's own (fetch) multipart parser. */
const parseForm = async (contentType: string, body: Buffer): Promise<FormData> => {
  try {
    // Deprecated for servers that would stream a body through it; a Lambda event's body is whole
    // in memory already, so a streaming parser (and a dependency) would buy nothing.
    const request = new Request('http://localhost/', {
      method: 'POST',
      headers: { 'content-type': contentType },
      body,
    });
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    return await request.formData();
  } catch {
    throw invalid('the body is not valid multipart/form-data (check its boundary)');
  }
};

type FormValue = NonNullable<ReturnType<FormData['get']>>;

const single = (form: FormData, field: string): FormValue | undefined => {
  const values = form.getAll(field);
  if (values.length > 1) throw invalid(`the form field ${field} is given more than once`);
  return values[0];
};

const textField = async (form: FormData, field: string): Promise<string | undefined> => {
  const value = single(form, field);
  return typeof value === 'string' || value === undefined ? value : value.text();
};

const readMetadata = async (form: FormData): Promise<Record<string, unknown>> => {
  const raw = await textField(form, 'metadata');
  if (raw === undefined || raw.trim() === '') return {};
  if (Buffer.byteLength(raw) > MAX_METADATA_BYTES) {
    throw new PrognozError('payload_too_large', `metadata is over ${MAX_METADATA_BYTES} bytes of JSON`);
  }
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw invalid('metadata is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw invalid('metadata must be a JSON object');
  return value as Record<string, unknown>;
};

/**
 * POST /api/v1/files: multipart/form-data with the file in `content` (with a filename), and
 * optional `metadata` (JSON), `filename` and `type`. Another content type is 415, a broken form or
 * no file 400, a file over 100 MiB 413.
 */
export const readUpload = async (event: APIGatewayProxyEvent): Promise<Upload> => {
  const contentType = event.headers['content-type'] ?? '';
  const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (mediaType !== 'multipart/form-data') {
    throw new PrognozError(
      'unsupported_media_type',
      `${mediaType === '' ? 'no Content-Type' : mediaType} is not accepted; send multipart/form-data with the file in the field \`content\``,
    );
  }
  const body = bodyBytes(event);
  if (body.length > MAX_UPLOAD_BYTES + MULTIPART_OVERHEAD_BYTES)
    throw tooLarge(event, `the request body is ${body.length} bytes`);
  const form = await parseForm(contentType, body);

  const content = single(form, 'content');
  if (content === undefined) throw invalid('the file is missing: send it in the form field `content`');
  if (typeof content === 'string') throw invalid('`content` must be a file part (with a filename), not a text field');
  if (content.size > MAX_UPLOAD_BYTES) throw tooLarge(event, `the file is ${content.size} bytes`);

  const name = (await textField(form, 'filename')) || content.name || 'file';
  if (name.length > MAX_NAME_LENGTH) throw invalid(`filename is over ${MAX_NAME_LENGTH} characters`);
  const givenType = await textField(form, 'type');
  const type = givenType?.trim() || content.type || DEFAULT_CONTENT_TYPE;
  if (!MEDIA_TYPE.test(type)) throw invalid(`type ${type.slice(0, 100)} is not a media type such as image/png`);

  return {
    content: new Uint8Array(await content.arrayBuffer()),
    name,
    contentType: type,
    metadata: await readMetadata(form),
  };
};
