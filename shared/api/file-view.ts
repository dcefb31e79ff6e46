import * as z from 'zod';
import { formatTimestamp } from '../domain/clock.ts';
import type { StoredFile } from '../domain/stored-file.ts';
import type { FileStore } from '../ports/file-store.ts';
import { pageSchema } from './page-links.ts';

/**
 * How long a file's `urls.get` works. A URL presigned with a Lambda role's temporary credentials
 * stops working when those credentials expire, whatever expiry it asks for, and they may have
 * little time left; an hour is what can be promised. GET /files/{id} hands out a fresh one.
 */
export const DOWNLOAD_URL_SECONDS = 60 * 60;

/** The file as clients see it: Replicate's file object. */
export const fileViewSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    content_type: z.string(),
    size: z.int().nonnegative().describe('Bytes.'),
    etag: z.string(),
    checksums: z.object({ sha256: z.string(), md5: z.string() }),
    metadata: z.record(z.string(), z.unknown()),
    created_at: z.iso.datetime(),
    expires_at: z.iso.datetime().describe('When it is removed: the end of the retention period.'),
    urls: z.object({
      get: z
        .url()
        .describe(
          `Downloads the bytes with no credentials, for ${DOWNLOAD_URL_SECONDS / 60} minutes; usable as a file input.`,
        ),
    }),
  })
  .meta({ id: 'File' });

export type FileView = z.infer<typeof fileViewSchema>;

/** `GET /files`: the caller's files. */
export const fileListSchema = pageSchema(fileViewSchema, 'FileList', 'Newest first; only files that have not expired.');

export const fileView = (file: StoredFile, downloadUrl: string): FileView => ({
  id: file.id,
  name: file.name,
  content_type: file.contentType,
  size: file.size,
  // What S3 gives a single-part upload as its ETag.
  etag: file.md5,
  checksums: { sha256: file.sha256, md5: file.md5 },
  metadata: file.metadata,
  created_at: formatTimestamp(file.createdAtMs),
  expires_at: formatTimestamp(file.expiresAtSeconds * 1000),
  urls: { get: downloadUrl },
});

/** The file object with a fresh download address. */
export const presentFile = async (file: StoredFile, files: FileStore): Promise<FileView> =>
  fileView(file, await files.downloadUrl(file, DOWNLOAD_URL_SECONDS));
