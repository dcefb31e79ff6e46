import { GetObjectCommand, NoSuchKey, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import mime from 'mime';
import { outputFileKey, predictionOutputsPrefix, type OutputStore } from '../ports/output-store.ts';
import { s3 } from './aws-clients.ts';

/** S3's smallest part: a file larger than this is uploaded in parts of this size. */
const FILE_PART_BYTES = 5 * 1024 * 1024;

/** One object per attempt, so that a run that was taken over can never overwrite the one that counts. */
export const outputObjectKey = (predictionId: string, claim: string): string =>
  `${predictionOutputsPrefix(predictionId)}${claim}.json`;

/** The file's name ends its URL (`output-0.png`), so a download is saved under a name with its type. */
export const outputFileName = (index: number, contentType: string): string =>
  `output-${index}.${mime.getExtension(contentType) ?? 'bin'}`;

export const s3OutputStore = (bucket: string, client: S3Client = s3()): OutputStore => ({
  async put(predictionId, claim, json) {
    const key = outputObjectKey(predictionId, claim);
    await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: json, ContentType: 'application/json' }));
    return key;
  },
  async get(key) {
    const { Body } = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    if (!Body) throw new Error(`the output ${key} has no body`);
    return Body.transformToString('utf8');
  },
  async putFile(predictionId, claim, index, file) {
    const key = outputFileKey(predictionId, claim, outputFileName(index, file.contentType));
    // Large files go up in parts, side by side: faster than one request, and no request is over S3's part limits.
    await new Upload({
      client,
      params: { Bucket: bucket, Key: key, Body: file.bytes, ContentType: file.contentType },
      partSize: FILE_PART_BYTES,
      queueSize: 4,
    }).done();
    return key;
  },
  async openFile(key, range) {
    try {
      const object = await client.send(
        new GetObjectCommand({ Bucket: bucket, Key: key, ...(range === undefined ? {} : { Range: range }) }),
      );
      if (!object.Body) return null;
      return {
        body: object.Body as NodeJS.ReadableStream,
        contentType: object.ContentType ?? 'application/octet-stream',
        contentLength: object.ContentLength ?? 0,
        etag: object.ETag ?? null,
        contentRange: object.ContentRange ?? null,
      };
    } catch (error) {
      if (error instanceof NoSuchKey) return null;
      throw error;
    }
  },
});
