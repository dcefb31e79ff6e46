import type { S3Client } from '@aws-sdk/client-s3';
import { DeleteCommand, GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from '../zod-mini.ts';
import { formatTimestamp, parseTimestamp } from '../domain/clock.ts';
import { asAccountId, parseFileId, type FileId } from '../domain/ids.ts';
import { isExpired, type StoredFile } from '../domain/stored-file.ts';
import type { FileStore } from '../ports/file-store.ts';
import { dynamo } from './aws-clients.ts';
import { s3SdkAndClient } from './s3-client.ts';
import { keysetPage } from './keyset-page.ts';
import { readItems } from './batch-read.ts';
import { s3OutputReader } from './output-store-reader.ts';
import { accountIndexPartition, FILE_INDEX_PREFIX, fileIndexKey, fileKey, OWNER_INDEX } from './table-keys.ts';

/** Under its owner, so that an account's files can be found (and removed) in the bucket alone. */
export const fileObjectKey = (file: Pick<StoredFile, 'owner' | 'id'>): string => `files/${file.owner}/${file.id}`;

/** The file's table item, parsed when read back (the table is a trust boundary); made at the first read. */
const fileItem = z.lazy(() =>
  z.object({
    id: z.custom<FileId>((raw) => typeof raw === 'string' && parseFileId(raw) !== null, 'not a file id'),
    owner: z.pipe(z.string(), z.transform(asAccountId)),
    name: z.string(),
    content_type: z.string(),
    size: z.int().check(z.nonnegative()),
    sha256: z.string(),
    md5: z.string(),
    // JSON text, as a prediction's input (prediction-item.ts): any JSON a caller sends must fit, which a DynamoDB map does not.
    metadata_json: z.optional(z.string()),
    // Items written before metadata_json existed hold a map.
    metadata: z.optional(z.record(z.string(), z.unknown())),
    created_at: z.string(),
    expires_at: z.int(),
  }),
);

const toItem = (file: StoredFile) => ({
  ...fileKey(file.id),
  ...fileIndexKey(file.owner, formatTimestamp(file.createdAtMs), file.id),
  type: 'file',
  id: file.id,
  owner: file.owner,
  name: file.name,
  content_type: file.contentType,
  size: file.size,
  sha256: file.sha256,
  md5: file.md5,
  metadata_json: JSON.stringify(file.metadata),
  created_at: formatTimestamp(file.createdAtMs),
  // The table's TTL attribute (epoch seconds).
  expires_at: file.expiresAtSeconds,
});

const fromItem = (item: Record<string, unknown>): StoredFile => {
  const parsed = fileItem.parse(item);
  return {
    id: parsed.id,
    owner: parsed.owner,
    name: parsed.name,
    contentType: parsed.content_type,
    size: parsed.size,
    sha256: parsed.sha256,
    md5: parsed.md5,
    metadata:
      parsed.metadata_json === undefined
        ? (parsed.metadata ?? {})
        : (JSON.parse(parsed.metadata_json) as Record<string, unknown>),
    createdAtMs: parseTimestamp(parsed.created_at),
    expiresAtSeconds: parsed.expires_at,
  };
};

export interface FileStoreClients {
  /** Default: the process's own, loaded at the first use of a file's bytes. */
  readonly s3?: S3Client;
  readonly dynamo: DynamoDBDocumentClient;
}

/** Bytes in the outputs bucket (its lifecycle rule expires them), records in the single table (TTL). */
export const s3DynamoFileStore = (
  tableName: string,
  bucket: string,
  clients: FileStoreClients = { dynamo: dynamo() },
  now: () => number = Date.now,
): FileStore => {
  const sdk = s3SdkAndClient(clients.s3);
  const objects = s3OutputReader(bucket, clients.s3);
  return {
    async save(file, content) {
      const [{ PutObjectCommand }, client] = await sdk();
      await client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: fileObjectKey(file),
          Body: content,
          ContentType: file.contentType,
        }),
      );
      await clients.dynamo.send(
        new PutCommand({ TableName: tableName, Item: toItem(file), ConditionExpression: 'attribute_not_exists(pk)' }),
      );
    },
    async find(id) {
      const { Item } = await clients.dynamo.send(new GetCommand({ TableName: tableName, Key: fileKey(id) }));
      if (!Item) return null;
      const file = fromItem(Item);
      return isExpired(file, now()) ? null : file;
    },
    async remove(file) {
      // The record first: bytes without a record are invisible, and the lifecycle rule takes them.
      await clients.dynamo.send(new DeleteCommand({ TableName: tableName, Key: fileKey(file.id) }));
      const [{ DeleteObjectCommand }, client] = await sdk();
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: fileObjectKey(file) }));
    },
    async downloadUrl(file, expiresInSeconds) {
      const [[{ GetObjectCommand }, client], { getSignedUrl }] = await Promise.all([
        sdk(),
        import('@aws-sdk/s3-request-presigner'),
      ]);
      return getSignedUrl(client, new GetObjectCommand({ Bucket: bucket, Key: fileObjectKey(file) }), {
        expiresIn: expiresInSeconds,
      });
    },
    open: (file) => objects.openFile(fileObjectKey(file)),
    async listOwned(owner, request) {
      const entries = await keysetPage(
        clients.dynamo,
        {
          tableName,
          indexName: OWNER_INDEX.name,
          partition: { name: OWNER_INDEX.partition, value: accountIndexPartition(owner) },
          sort: { name: OWNER_INDEX.sort, prefix: FILE_INDEX_PREFIX },
          descending: true,
        },
        request,
      );
      // The index holds keys only: the records are read, and one expired (or removed) since is left out.
      const items = await readItems(clients.dynamo, tableName, entries.items);
      const nowMs = now();
      return { ...entries, items: items.map(fromItem).filter((file) => !isExpired(file, nowMs)) };
    },
  };
};
