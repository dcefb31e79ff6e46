import type { APIGatewayProxyEvent } from 'aws-lambda';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readUpload } from '../../functions/http/upload-body.ts';
import { AWS_UPLOAD_LIMIT_NOTE, MAX_UPLOAD_BYTES } from '../../shared/api/uploads.ts';
import { asAccountId, newFileId } from '../../shared/domain/ids.ts';
import { describeFile, isExpired } from '../../shared/domain/stored-file.ts';

/** The body and Content-Type a fetch of this form would send. */
const encode = async (form: FormData) => {
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return { contentType: request.headers.get('content-type') ?? '', body: Buffer.from(await request.arrayBuffer()) };
};

/** The event API Gateway builds for a multipart/form-data body (one of its binary media types). */
const uploadEvent = async (form: FormData, options: { base64?: boolean } = {}): Promise<APIGatewayProxyEvent> => {
  const { contentType, body } = await encode(form);
  const base64 = options.base64 ?? true;
  return {
    headers: { 'content-type': contentType },
    body: body.toString(base64 ? 'base64' : 'utf8'),
    isBase64Encoded: base64,
  } as unknown as APIGatewayProxyEvent;
};

describe('reading an upload', () => {
  it("takes the file from `content`, and the name and type from Replicate's optional `filename` and `type` fields", async () => {
    const bytes = new Uint8Array([0, 255, 128, 10, 13]);
    const form = new FormData();
    form.append('content', new Blob([bytes], { type: 'application/octet-stream' }), 'blob');
    form.append('filename', 'take.flac');
    form.append('type', 'audio/flac');
    form.append('metadata', '{"take": 2}');

    const upload = await readUpload(await uploadEvent(form));

    expect(upload).toEqual({ content: bytes, name: 'take.flac', contentType: 'audio/flac', metadata: { take: 2 } });
  });

  it("without those fields, keeps the part's own filename and type", async () => {
    const form = new FormData();
    form.append('content', new Blob(['hi'], { type: 'text/csv' }), 'table.csv');

    expect(await readUpload(await uploadEvent(form, { base64: false }))).toMatchObject({
      name: 'table.csv',
      contentType: 'text/csv',
      metadata: {},
    });
  });

  it("refuses a file over 100 MiB, and a base64 event (API Gateway's) is told what AWS allows", async () => {
    const form = new FormData();
    form.append('content', new Blob([new Uint8Array(MAX_UPLOAD_BYTES + 1)]), 'big.bin');

    await expect(readUpload(await uploadEvent(form))).rejects.toMatchObject({
      code: 'payload_too_large',
      message: expect.stringContaining(AWS_UPLOAD_LIMIT_NOTE) as string,
    });
  });

  it('refuses a second `content`, and a type that is no media type', async () => {
    const twice = new FormData();
    twice.append('content', new Blob(['a']), 'a');
    twice.append('content', new Blob(['b']), 'b');
    await expect(readUpload(await uploadEvent(twice))).rejects.toMatchObject({ code: 'invalid_body' });

    const badType = new FormData();
    badType.append('content', new Blob(['a']), 'a');
    badType.append('type', 'not a type');
    await expect(readUpload(await uploadEvent(badType))).rejects.toMatchObject({ code: 'invalid_body' });
  });
});

describe('a stored file', () => {
  it('carries its digests and expires with the retention period, in whole seconds', () => {
    const content = new TextEncoder().encode('prognoz');
    const file = describeFile({
      id: newFileId(),
      owner: asAccountId('owner'),
      name: 'a.txt',
      contentType: 'text/plain',
      metadata: {},
      content,
      createdAtMs: 1_800_000_000_500,
      retentionSeconds: 86_400,
    });

    expect(file).toMatchObject({
      size: 7,
      sha256: createHash('sha256').update(content).digest('hex'),
      md5: createHash('md5').update(content).digest('hex'),
      expiresAtSeconds: 1_800_086_400,
    });
    expect(isExpired(file, 1_800_086_399_999)).toBe(false);
    expect(isExpired(file, 1_800_086_400_000)).toBe(true);
  });
});
