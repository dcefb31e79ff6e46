import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createHash, randomBytes } from 'node:crypto';
import Replicate from 'replicate';
import { describe, expect, it } from 'vitest';
import { fileKey } from '../../shared/adapters/table-keys.ts';
import type { FileView } from '../../shared/api/file-view.ts';
import { MAX_UPLOAD_BYTES } from '../../shared/api/uploads.ts';
import { call, createOtherAccount, createPrediction, localDynamo, runtime } from '../support/api.ts';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const md5 = (bytes: Uint8Array) => createHash('md5').update(bytes).digest('hex');
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const DAY_MS = 86_400_000;

/** Every byte value, in random order: what would not survive a trip through text. */
const binaryBytes = (size: number): Uint8Array => {
  const bytes = randomBytes(size);
  for (let value = 0; value < 256; value += 1) bytes[value] = value;
  return new Uint8Array(bytes);
};

interface UploadOptions {
  readonly name?: string;
  readonly type?: string;
  readonly metadata?: unknown;
  readonly token?: string;
}

/** A real multipart request, as browsers and the replicate client send one. */
const upload = async (content: Uint8Array | null, options: UploadOptions = {}) => {
  const form = new FormData();
  if (content)
    form.append(
      'content',
      new Blob([content], { type: options.type ?? 'application/octet-stream' }),
      options.name ?? 'upload.bin',
    );
  if (options.metadata !== undefined)
    form.append('metadata', new Blob([JSON.stringify(options.metadata)], { type: 'application/json' }));
  const response = await fetch(new URL('files', runtime().apiUrl), {
    method: 'POST',
    headers: { authorization: `Bearer ${options.token ?? runtime().apiToken}` },
    body: form,
  });
  return {
    status: response.status,
    json: (await response.json()) as FileView & { error?: { code: string; message: string } },
  };
};

const download = async (url: string) => {
  const response = await fetch(url);
  return { status: response.status, bytes: new Uint8Array(await response.arrayBuffer()) };
};

describe('file uploads', () => {
  it("keep the bytes and answer with Replicate's file object, whose urls.get downloads them", async () => {
    const content = binaryBytes(300_000);
    const metadata = { customer_reference_id: 123, note: 'привет' };

    const created = await upload(content, { name: 'voice.wav', type: 'audio/wav', metadata });

    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      name: 'voice.wav',
      content_type: 'audio/wav',
      size: content.length,
      etag: md5(content),
      checksums: { sha256: sha256(content), md5: md5(content) },
      metadata,
    });
    expect(created.json.id).toMatch(UUID);
    expect(created.json.created_at).toMatch(TIMESTAMP);
    expect(created.json.expires_at).toMatch(TIMESTAMP);
    // Kept as long as predictions are (PROGNOZ_RETENTION_DAYS, 30 by default).
    expect(Date.parse(created.json.expires_at) - Date.parse(created.json.created_at)).toBeCloseTo(30 * DAY_MS, -4);
    expect(new URL(created.json.urls.get).searchParams.get('X-Amz-Expires')).toBe('3600');
    const downloaded = await download(created.json.urls.get);
    expect(downloaded.status).toBe(200);
    expect(Buffer.from(downloaded.bytes).equals(Buffer.from(content))).toBe(true);

    const read = await call<FileView>(`files/${created.json.id}`);
    expect(read.status).toBe(200);
    expect({ ...read.json, urls: null }).toEqual({ ...created.json, urls: null });
    expect(sha256((await download(read.json.urls.get)).bytes)).toBe(sha256(content));
  });

  it('give a URL that a prediction takes as its file input', async () => {
    const content = binaryBytes(50_000);
    const { json: file } = await upload(content);

    const done = await createPrediction({ file: file.urls.get }, { headers: { prefer: 'wait' } });

    expect(done.json.status).toBe('succeeded');
    expect(done.json.output).toEqual({ text: 'hello', file: { size: content.length, sha256: sha256(content) } });
  });

  it('are seen only by their account, until deleted', async () => {
    const { json: file } = await upload(binaryBytes(1_000));
    const other = await createOtherAccount();

    for (const method of ['GET', 'DELETE']) {
      const foreign = await call(`files/${file.id}`, { method, token: other });
      expect(foreign.status).toBe(404);
      expect(foreign.json).toMatchObject({ error: { code: 'file_not_found' } });
    }
    const deleted = await fetch(new URL(`files/${file.id}`, runtime().apiUrl), {
      method: 'DELETE',
      headers: { authorization: `Bearer ${runtime().apiToken}` },
    });
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe('');

    expect((await call(`files/${file.id}`)).json).toMatchObject({ error: { code: 'file_not_found' } });
    expect((await call(`files/${file.id}`, { method: 'DELETE' })).status).toBe(404);
    expect((await download(file.urls.get)).status).toBe(404);
    expect((await call('files/not-a-file-id')).status).toBe(404);
  });

  it('are gone once expired, before the table deletes them', async () => {
    const { json: file } = await upload(binaryBytes(1_000));
    await localDynamo().send(
      new UpdateCommand({
        TableName: runtime().tableName,
        Key: fileKey(file.id),
        UpdateExpression: 'SET expires_at = :past',
        ExpressionAttributeValues: { ':past': Math.floor(Date.now() / 1000) - 1 },
      }),
    );

    const read = await call(`files/${file.id}`);

    expect(read.status).toBe(404);
    expect(read.json).toMatchObject({ error: { code: 'file_not_found' } });
  });
});

describe('a refused upload', () => {
  it('without a file in `content` is 400', async () => {
    const response = await upload(null, { metadata: { a: 1 } });
    expect(response.status).toBe(400);
    expect(response.json.error).toMatchObject({
      code: 'invalid_body',
      message: expect.stringContaining('content') as string,
    });
  });

  it('with broken multipart or metadata is 400', async () => {
    const broken = await call('files', {
      body: '--x\r\nnot a part',
      headers: { 'content-type': 'multipart/form-data; boundary=y' },
    });
    expect(broken.status).toBe(400);
    expect(broken.json).toMatchObject({ error: { code: 'invalid_body' } });
    const form = new FormData();
    form.append('content', new Blob(['hi']), 'a.txt');
    form.append('metadata', '[1, 2]');
    const response = await fetch(new URL('files', runtime().apiUrl), {
      method: 'POST',
      headers: { authorization: `Bearer ${runtime().apiToken}` },
      body: form,
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { code: 'invalid_body', message: 'metadata must be a JSON object' },
    });
  });

  it('of another content type is 415', async () => {
    const response = await call('files', { body: { content: 'aGk=' } });
    expect(response.status).toBe(415);
    expect(response.json).toMatchObject({ error: { code: 'unsupported_media_type' } });
  });

  it('over 100 MiB is 413, saying what AWS allows', async () => {
    const response = await upload(new Uint8Array(MAX_UPLOAD_BYTES + 1));
    expect(response.status).toBe(413);
    expect(response.json.error).toMatchObject({
      code: 'payload_too_large',
      message: expect.stringContaining('4.5 MB') as string,
    });
  });
});

describe('the official replicate client', () => {
  it('creates, reads and deletes a file', async () => {
    // apiUrl is the API's base, `http://127.0.0.1:<port>/api/v1/`, where the client appends `files`.
    const replicate = new Replicate({ auth: runtime().apiToken, baseUrl: runtime().apiUrl });
    const content = Buffer.from(binaryBytes(10_000));

    const created = (await replicate.files.create(content, { purpose: 'test' })) as FileView;
    expect(created).toMatchObject({
      size: content.length,
      content_type: 'application/octet-stream',
      checksums: { sha256: sha256(content) },
      metadata: { purpose: 'test' },
    });
    expect(created.name).toMatch(/^buffer_\d+$/);

    const read = (await replicate.files.get(created.id)) as FileView;
    expect(read.id).toBe(created.id);
    expect(sha256((await download(read.urls.get)).bytes)).toBe(sha256(content));

    expect(await replicate.files.delete(created.id)).toBe(true);
    expect((await call(`files/${created.id}`)).status).toBe(404);
  });
});
