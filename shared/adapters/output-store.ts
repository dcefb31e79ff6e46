import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import mime from 'mime';
import { outputFileKey, predictionOutputsPrefix, type OutputStore } from '../ports/output-store.ts';
import { s3OutputReader } from './output-store-reader.ts';
import { s3Or } from './s3-client.ts';

/** S3's smallest part: a file larger than this is uploaded in parts of this size. */
const FILE_PART_BYTES = 5 * 1024 * 1024;

/** One object per attempt, so that a run that was taken over can never overwrite the one that counts. */
export const outputObjectKey = (predictionId: string, claim: string): string =>
  `${predictionOutputsPrefix(predictionId)}${claim}.json`;

/** The file's name ends its URL (`output-0.png`), so a download is saved under a name with its type. */
export const outputFileName = (index: number, contentType: string): string =>
  `output-${index}.${mime.getExtension(contentType) ?? 'bin'}`;

/** The whole store, as the worker uses it: it writes the outputs that the functions read. */
export const s3OutputStore = (bucket: string, given?: S3Client): OutputStore => {
  const client = s3Or(given);
  return {
    ...s3OutputReader(bucket, given),
    async put(predictionId, claim, json) {
      const key = outputObjectKey(predictionId, claim);
      const s3 = await client();
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: json, ContentType: 'application/json' }));
      return key;
    },
    async putFile(predictionId, claim, index, file) {
      const key = outputFileKey(predictionId, claim, outputFileName(index, file.contentType));
      // Large files go up in parts, side by side: faster than one request, and no request is over S3's part limits.
      await new Upload({
        client: await client(),
        params: { Bucket: bucket, Key: key, Body: file.bytes, ContentType: file.contentType },
        partSize: FILE_PART_BYTES,
        queueSize: 4,
      }).done();
      return key;
    },
  };
};
