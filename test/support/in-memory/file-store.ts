import type { FileId } from '../../../shared/domain/ids.ts';
import { isExpired, type StoredFile } from '../../../shared/domain/stored-file.ts';
import type { FileStore } from '../../../shared/ports/file-store.ts';
import { Readable } from 'node:stream';
import { formatTimestamp } from '../../../shared/domain/clock.ts';
import { answer } from './answer.ts';
import { pageOf } from './page.ts';

/**
 * Uploaded files in memory. A download address is a `data:` URL of the bytes: like a presigned
 * URL, it downloads them with no other credentials (fetch reads it).
 */
export const inMemoryFileStore = (now: () => number = Date.now): FileStore => {
  const files = new Map<FileId, { readonly file: StoredFile; readonly content: Uint8Array }>();
  return {
    save: (file, content) =>
      answer(() => {
        if (files.has(file.id)) throw new Error(`file ${file.id} exists already`);
        files.set(file.id, { file, content: Uint8Array.from(content) });
      }),
    find: (id) =>
      answer(() => {
        const kept = files.get(id);
        return kept && !isExpired(kept.file, now()) ? kept.file : null;
      }),
    remove: (file) =>
      answer(() => {
        files.delete(file.id);
      }),
    downloadUrl: (file) =>
      answer(() => {
        const kept = files.get(file.id);
        if (!kept) throw new Error(`file ${file.id} has no bytes`);
        return `data:${file.contentType};base64,${Buffer.from(kept.content).toString('base64')}`;
      }),
    open: (file) =>
      answer(() => {
        const kept = files.get(file.id);
        if (!kept) return null;
        return {
          body: Readable.from([Buffer.from(kept.content)]),
          contentType: file.contentType,
          contentLength: kept.content.length,
          etag: `"${file.md5}"`,
          contentRange: null,
        };
      }),
    listOwned: (owner, request) =>
      answer(() => {
        const position = (file: StoredFile) => `${formatTimestamp(file.createdAtMs)}#${file.id}`;
        const owned = [...files.values()]
          .map((kept) => kept.file)
          .filter((file) => file.owner === owner && !isExpired(file, now()));
        return pageOf(owned, position, true, request);
      }),
  };
};
