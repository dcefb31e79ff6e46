import type { Clock } from '../domain/clock.ts';
import { newFileId, type AccountId, type IdGenerator } from '../domain/ids.ts';
import { describeFile, type StoredFile } from '../domain/stored-file.ts';
import type { FileStore } from '../ports/file-store.ts';

export interface UploadDeps {
  readonly files: FileStore;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  /** How long the file is kept: as long as predictions are (PROGNOZ_RETENTION_DAYS). */
  readonly retentionSeconds: number;
}

export interface UploadRequest {
  readonly owner: AccountId;
  readonly name: string;
  readonly contentType: string;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly content: Uint8Array;
}

/** Keeps an account's file until the retention period ends, and returns its record. */
export const uploadFileUseCase = async (deps: UploadDeps, request: UploadRequest): Promise<StoredFile> => {
  const file = describeFile({
    ...request,
    id: newFileId(deps.ids),
    createdAtMs: deps.clock.now(),
    retentionSeconds: deps.retentionSeconds,
  });
  await deps.files.save(file, request.content);
  return file;
};
