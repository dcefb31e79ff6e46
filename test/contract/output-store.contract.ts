import { describe, expect, it } from 'vitest';
import { newPredictionId } from '../../shared/domain/ids.ts';
import { outputFileKey, predictionOutputsPrefix, type OutputStore } from '../../shared/ports/output-store.ts';

export type MakeOutputStore = () => Promise<OutputStore>;

const read = async (body: NodeJS.ReadableStream): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
};

/** What every OutputStore does, whatever keeps the outputs. */
export const describeOutputStoreContract = (name: string, make: MakeOutputStore) =>
  describe(`${name}: the output store`, () => {
    it("keeps an attempt's output under the prediction's prefix, one object per attempt", async () => {
      const outputs = await make();
      const id = newPredictionId();
      const first = await outputs.put(id, 'claim-1', '{"text":"привет"}');
      const second = await outputs.put(id, 'claim-2', '[1,2]');
      expect(first.startsWith(predictionOutputsPrefix(id))).toBe(true);
      expect(second).not.toBe(first);
      expect(await outputs.get(first)).toBe('{"text":"привет"}');
      expect(await outputs.get(second)).toBe('[1,2]');
      await expect(outputs.get(`${predictionOutputsPrefix(id)}missing.json`)).rejects.toThrow();
    });

    it('keeps the files a model returned, named by their type, and serves them whole or in part', async () => {
      const outputs = await make();
      const id = newPredictionId();
      const bytes = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3, 4, 5, 6]);
      const key = await outputs.putFile(id, 'claim-1', 0, { contentType: 'image/png', bytes });
      expect(key).toBe(outputFileKey(id, 'claim-1', 'output-0.png'));
      const whole = await outputs.openFile(key);
      if (!whole) throw new Error('the file is not there');
      expect({ ...whole, body: [...(await read(whole.body))] }).toEqual({
        body: [...bytes],
        contentType: 'image/png',
        contentLength: 10,
        etag: expect.any(String) as unknown,
        contentRange: null,
      });
      const part = await outputs.openFile(key, 'bytes=2-5');
      if (!part) throw new Error('the file is not there');
      expect([...(await read(part.body))]).toEqual([...bytes.subarray(2, 6)]);
      expect(part).toMatchObject({ contentLength: 4, contentRange: 'bytes 2-5/10', contentType: 'image/png' });
      expect(await outputs.openFile(outputFileKey(id, 'claim-1', 'output-1.png'))).toBeNull();
    });
  });
