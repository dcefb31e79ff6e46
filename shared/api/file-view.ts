import { formatTimestamp } from '../domain/clock.ts';
import type { StoredFile } from '../domain/stored-file.ts';
import type { FileStore } from '../ports/file-store.ts';
import type { FileView } from './file-view-schema.ts';
import { DOWNLOAD_URL_SECONDS } from './uploads.ts';

export type { FileView } from './file-view-schema.ts';

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
