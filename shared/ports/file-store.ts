import type { FileId } from '../domain/ids.ts';
import type { AccountId } from '../domain/ids.ts';
import type { StoredFile } from '../domain/stored-file.ts';
import type { OpenedFile } from './output-store.ts';
import type { Page, PageRequest } from '../domain/page.ts';

/** Where uploaded files are kept (architecture: Data: the outputs bucket, and a record in the table). */
export interface FileStore {
  /** Keeps the bytes, then the record that makes them visible. */
  save(file: StoredFile, content: Uint8Array): Promise<void>;
  /** The file's record; null when there is none or it has expired. */
  find(id: FileId): Promise<StoredFile | null>;
  /** Removes the record, then the bytes. */
  remove(file: StoredFile): Promise<void>;
  /** An address that downloads the bytes, with no other credentials, for `expiresInSeconds`. */
  downloadUrl(file: StoredFile, expiresInSeconds: number): Promise<string>;
  /** The bytes, streamed; null when they are gone. */
  open(file: StoredFile): Promise<OpenedFile | null>;
  /** The owner's files that have not expired, newest first. */
  listOwned(owner: AccountId, page: PageRequest): Promise<Page<StoredFile>>;
}
