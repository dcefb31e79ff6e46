import { createHash } from 'node:crypto';
import type { AccountId, FileId } from './ids.ts';

/** An uploaded file as prognoz keeps it: the bytes live elsewhere (FileStore), this is their record. */
export interface StoredFile {
  readonly id: FileId;
  readonly owner: AccountId;
  readonly name: string;
  readonly contentType: string;
  readonly size: number;
  /** Hex digests of the bytes. */
  readonly sha256: string;
  readonly md5: string;
  /** What the uploader attached, returned as given. */
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly createdAtMs: number;
  /** Whole seconds, as the table's TTL attribute wants them. */
  readonly expiresAtSeconds: number;
}

export interface NewFile {
  readonly id: FileId;
  readonly owner: AccountId;
  readonly name: string;
  readonly contentType: string;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly content: Uint8Array;
  readonly createdAtMs: number;
  /** Inputs are kept as long as everything else the account sent (architecture: Retention). */
  readonly retentionSeconds: number;
}

export const describeFile = (file: NewFile): StoredFile => ({
  id: file.id,
  owner: file.owner,
  name: file.name,
  contentType: file.contentType,
  size: file.content.byteLength,
  sha256: createHash('sha256').update(file.content).digest('hex'),
  md5: createHash('md5').update(file.content).digest('hex'),
  metadata: file.metadata,
  createdAtMs: file.createdAtMs,
  expiresAtSeconds: Math.floor(file.createdAtMs / 1000) + file.retentionSeconds,
});

/** TTL deletes expired items days late: an expired file is gone as far as anyone can see. */
export const isExpired = (file: StoredFile, nowMs: number): boolean => file.expiresAtSeconds * 1000 <= nowMs;
