import { describe, expect, it } from 'vitest';
import { newFileId } from '../../shared/domain/ids.ts';
import { describeFile } from '../../shared/domain/stored-file.ts';
import type { FileStore } from '../../shared/ports/file-store.ts';
import { fakeClock, type FakeClock } from '../support/in-memory/clock.ts';
import { freshOwner } from '../support/predictions.ts';

export type MakeFileStore = (clock: FakeClock) => Promise<FileStore>;

/** What every FileStore does, whatever keeps the files. */
export const describeFileStoreContract = (name: string, make: MakeFileStore) =>
  describe(`${name}: the file store`, () => {
    const upload = (clock: FakeClock, content: Uint8Array) =>
      describeFile({
        id: newFileId(),
        owner: freshOwner(),
        name: 'notes.txt',
        contentType: 'text/plain',
        metadata: { purpose: 'contract', nested: { deep: [1, 2] } },
        content,
        createdAtMs: clock.now(),
        retentionSeconds: 3600,
      });

    it('keeps a file until it expires, and gives an address that downloads it', async () => {
      const clock = fakeClock();
      const files = await make(clock);
      const content = new TextEncoder().encode('привет, файл');
      const file = upload(clock, content);
      await files.save(file, content);
      expect(await files.find(file.id)).toEqual(file);
      const download = await fetch(await files.downloadUrl(file, 60));
      expect(new Uint8Array(await download.arrayBuffer())).toEqual(content);
      await expect(files.save(file, content)).rejects.toThrow();
      clock.set(file.expiresAtSeconds * 1000);
      expect(await files.find(file.id)).toBeNull();
      expect(await files.find(newFileId())).toBeNull();
    });

    it('removes a file', async () => {
      const clock = fakeClock();
      const files = await make(clock);
      const content = Uint8Array.from([1, 2, 3]);
      const file = upload(clock, content);
      await files.save(file, content);
      await files.remove(file);
      expect(await files.find(file.id)).toBeNull();
    });
  });
