import type { S3Client } from '@aws-sdk/client-s3';
import { inputObjectKey, type InputStore } from '../ports/input-store.ts';
import { s3Or, s3Sdk } from './s3-client.ts';

export const s3InputStore = (bucket: string, given?: S3Client): InputStore => {
  const client = s3Or(given);
  return {
    async put(predictionId, json) {
      const [{ PutObjectCommand }, s3] = await Promise.all([s3Sdk(), client()]);
      const key = inputObjectKey(predictionId);
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: json, ContentType: 'application/json' }));
      return key;
    },
    async remove(key) {
      const [{ DeleteObjectCommand }, s3] = await Promise.all([s3Sdk(), client()]);
      await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },
  };
};
