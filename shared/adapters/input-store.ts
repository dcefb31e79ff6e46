import type { S3Client } from '@aws-sdk/client-s3';
import { inputObjectKey, type InputStore } from '../ports/input-store.ts';
import { s3SdkAndClient } from './s3-client.ts';

export const s3InputStore = (bucket: string, given?: S3Client): InputStore => {
  const sdk = s3SdkAndClient(given);
  return {
    async put(predictionId, json) {
      const [{ PutObjectCommand }, s3] = await sdk();
      const key = inputObjectKey(predictionId);
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: json, ContentType: 'application/json' }));
      return key;
    },
    async remove(key) {
      const [{ DeleteObjectCommand }, s3] = await sdk();
      await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },
  };
};
