/**
 * Request bodies API Gateway passes base64-encoded (its binaryMediaTypes), so that their bytes
 * arrive intact: file uploads. The local front does the same.
 */
export const BINARY_MEDIA_TYPES = ['multipart/form-data'] as const;

export const isBinaryMediaType = (contentType: string | undefined): boolean =>
  (BINARY_MEDIA_TYPES as readonly string[]).includes(contentType?.split(';')[0]?.trim().toLowerCase() ?? '');

/** How large a file upload (POST /api/v1/files) may be: Replicate's 100 MiB. */
export const MAX_UPLOAD_BYTES = 100 * 1024 * 1024;

/** Room around the file in its request: multipart framing, the metadata part, the text fields. */
export const MULTIPART_OVERHEAD_BYTES = 1024 * 1024;

/**
 * What AWS lets through, said in every 413 that AWS or the handler gives an upload: Lambda takes
 * at most 6 MiB of event and API Gateway base64-encodes a binary body (a third larger), so at most
 * 4.5 MiB of file, less the headers and the multipart framing, ever reaches the handler there;
 * API Gateway's own 10 MB limit comes later.
 */
export const AWS_UPLOAD_LIMIT_NOTE =
  'through API Gateway and Lambda (on AWS) an upload can be at most about 4.5 MB of file, because Lambda takes 6 MB of request ' +
  'and base64 makes a binary body a third larger; pass a larger file to a prediction as an http(s) URL instead';

/**
 * How long a file's `urls.get` works. A URL presigned with a Lambda role's temporary credentials
 * stops working when those credentials expire, whatever expiry it asks for, and they may have
 * little time left; an hour is what can be promised. GET /files/{id} hands out a fresh one.
 */
export const DOWNLOAD_URL_SECONDS = 60 * 60;
