import { formatTimestamp } from '../domain/clock.ts';
import type { StoredFile } from '../domain/stored-file.ts';
import type { FileStore } from '../ports/file-store.ts';

/**
 * How long a file's `urls.get` works. A URL presigned with a Lambda role's temporary credentials
 * stops working when those credentials expire, whatever expiry it asks for, and they may have
 * little time left; an hour is what can be promised. GET /files/{id} hands out a fresh one.
 */
export const DOWNLOAD_URL_SECONDS = 60 * 60;

/** The file as clients see it: Replicate's file object. */
export interface FileView {
  readonly id: string;
  readonly name: string;
  readonly content_type: string;
  readonly size: number;
  readonly etag: string;
  readonly checksums: { readonly sha256: string; readonly md5: string };
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly created_at: string;
  readonly expires_at: string;
  /** `get`: downloads the bytes with no credentials, for DOWNLOAD_URL_SECONDS; usable as a file input. */
  readonly urls: { readonly get: string };
}

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
