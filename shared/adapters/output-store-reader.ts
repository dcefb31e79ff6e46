import type { S3Client } from '@aws-sdk/client-s3';
import type { OutputReader } from '../ports/output-store.ts';
import { s3SdkAndClient } from './s3-client.ts';

/**
 * The reading half of the S3 output store, apart from the writing half so that the functions,
 * which only read, bundle neither the multipart upload nor the table of file types.
 */
export const s3OutputReader = (bucket: string, given?: S3Client): OutputReader => {
  const sdk = s3SdkAndClient(given);
  return {
    async get(key) {
      const [{ GetObjectCommand }, s3] = await sdk();
      const { Body } = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      if (!Body) throw new Error(`the output ${key} has no body`);
      return Body.transformToString('utf8');
    },
    async openFile(key, range) {
      const [{ GetObjectCommand, NoSuchKey }, s3] = await sdk();
      try {
        const object = await s3.send(
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
  };
};
