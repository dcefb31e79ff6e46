import { describe, expect, it } from 'vitest';
import { InputFetchFailed, type RunInputs } from '../../shared/ports/run-inputs.ts';

/** The model the inputs are for: a file, a list of files, and an input that may be null. */
export const INPUTS_MODEL = {
  files: [
    { name: 'audio', list: false },
    { name: 'pages', list: true },
  ],
  nullWhenOmitted: ['note'],
};

export interface RunInputsUnderTest {
  readonly inputs: RunInputs;
  /** The URL a caller's file of this text is at (a missing one: one that answers 404). */
  readonly hosted: (name: 'a.wav' | 'b.txt' | 'c.txt' | 'missing.wav') => string;
  /** What the model server reads at `address`; null when nothing is served there. */
  readonly read: (address: string) => Promise<string | null>;
}

/** The texts the hosted files hold. */
export const HOSTED_TEXT = { 'a.wav': 'RIFF-audio', 'b.txt': 'page b', 'c.txt': 'page c' } as const;

let runs = 0;
const runId = () => `inputs-run-${process.pid}-${++runs}`;

/** What every RunInputs does, whether the worker's folders or the twin in memory. */
export const describeRunInputsContract = (name: string, make: () => Promise<RunInputsUnderTest>) =>
  describe(`${name}: a run's file inputs`, () => {
    it('gives the model server each file fetched, at an address it reads while the run goes on, and null for an omitted input that may be null', async () => {
      const { inputs, hosted, read } = await make();
      const id = runId();
      const given = await inputs.prepare(
        id,
        { audio: hosted('a.wav'), pages: [hosted('b.txt'), hosted('c.txt')], language: 'ru' },
        new AbortController().signal,
      );
      expect(given).toMatchObject({ language: 'ru', note: null });
      expect(await read(String(given.audio))).toBe(HOSTED_TEXT['a.wav']);
      const pages = given.pages as string[];
      expect(await Promise.all(pages.map(read))).toEqual([HOSTED_TEXT['b.txt'], HOSTED_TEXT['c.txt']]);
      await inputs.release(id);
      expect(await read(String(given.audio))).toBeNull();
    });

    it('refuses a file that cannot be fetched, naming the input', async () => {
      const { inputs, hosted } = await make();
      const id = runId();
      const fetching = inputs.prepare(id, { audio: hosted('missing.wav') }, new AbortController().signal);
      await expect(fetching).rejects.toBeInstanceOf(InputFetchFailed);
      await expect(fetching).rejects.toThrow(/^the input audio could not be fetched: /);
      await inputs.release(id);
    });

    it('leaves an input without files as it was given', async () => {
      const { inputs } = await make();
      const id = runId();
      expect(await inputs.prepare(id, { note: 'kept', value: 1 }, new AbortController().signal)).toEqual({
        note: 'kept',
        value: 1,
      });
      await inputs.release(id);
    });
  });
