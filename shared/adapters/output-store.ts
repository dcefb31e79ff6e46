import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { OutputStore } from '../ports/output-store.ts';
import { s3 } from './aws-clients.ts';

/** One object per attempt, so that a run that was taken over can never overwrite the one that counts. */
export const outputObjectKey = (predictionId: string, claim: string): string => `outputs/${predictionId}/${claim}.json`;

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
});
