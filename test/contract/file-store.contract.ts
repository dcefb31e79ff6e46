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

    it('opens the bytes, with their type and length', async () => {
      const clock = fakeClock();
      const files = await make(clock);
      const content = new TextEncoder().encode('{"words": ["один", "два"]}');
      const file = { ...upload(clock, content), contentType: 'application/json' };
      await files.save(file, content);
      const opened = await files.open(file);
      expect(opened).toMatchObject({ contentType: 'application/json', contentLength: content.length });
      const chunks: Buffer[] = [];
      for await (const chunk of opened?.body ?? []) chunks.push(Buffer.from(chunk as Uint8Array));
      expect(new Uint8Array(Buffer.concat(chunks))).toEqual(content);
      await files.remove(file);
      expect(await files.open(file)).toBeNull();
    });

    it("lists an owner's files newest first, a page at a time both ways, without another's or the expired", async () => {
      const clock = fakeClock();
      const files = await make(clock);
      const owner = freshOwner();
      const saved = [];
      for (let n = 0; n < 5; n++) {
        const content = Uint8Array.from([n]);
        const file = { ...upload(clock, content), owner, name: `file-${n}.bin` };
        await files.save(file, content);
        saved.push(file);
        clock.advance(1000);
      }
      const someoneElses = upload(clock, Uint8Array.from([9]));
      await files.save(someoneElses, Uint8Array.from([9]));
      const names = (page: { items: { name: string }[] }) => page.items.map((file) => file.name);

      const first = await files.listOwned(owner, { limit: 2 });
      expect(names(first)).toEqual(['file-4.bin', 'file-3.bin']);
      expect(first.previous).toBeNull();
      expect(first.next).not.toBeNull();
      const second = await files.listOwned(owner, { limit: 2, from: { toward: 'next', position: first.next ?? '' } });
      expect(names(second)).toEqual(['file-2.bin', 'file-1.bin']);
      const third = await files.listOwned(owner, { limit: 2, from: { toward: 'next', position: second.next ?? '' } });
      expect(names(third)).toEqual(['file-0.bin']);
      expect(third.next).toBeNull();
      const back = await files.listOwned(owner, {
        limit: 2,
        from: { toward: 'previous', position: third.previous ?? '' },
      });
      expect(names(back)).toEqual(['file-2.bin', 'file-1.bin']);
      const start = await files.listOwned(owner, {
        limit: 2,
        from: { toward: 'previous', position: back.previous ?? '' },
      });
      expect(names(start)).toEqual(['file-4.bin', 'file-3.bin']);
      expect(start.previous).toBeNull();

      await files.remove(saved[4] ?? someoneElses);
      clock.set((saved[0]?.expiresAtSeconds ?? 0) * 1000);
      expect(names(await files.listOwned(owner, { limit: 10 }))).toEqual(['file-3.bin', 'file-2.bin', 'file-1.bin']);
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
