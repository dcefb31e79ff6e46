import { createHash } from 'node:crypto';
import { ENDINGS, OUTPUT_LIMITS } from '../../domain/endings.ts';
import { fileReference, isDataUrl, mapStringsInOrder, parseDataUrl, someString } from '../../domain/output-files.ts';
import type { OutputStore } from '../../ports/output-store.ts';

/** The files of a run add up to more than a prediction may return. */
export class OutputFilesTooLarge extends Error {
  override readonly name = 'OutputFilesTooLarge';
  constructor(bytes: number, limit: number) {
    super(ENDINGS.outputFilesTooLarge(bytes, limit));
  }
}

/**
 * Keeps the files one run returns (data URLs from coglet) in the outputs bucket and puts a
 * reference to each in their place. A file seen again (an iterator's pieces arrive with every
 * update, then again in the end) is stored once: the same bytes get the same reference.
 */
export class RunFiles {
  private readonly kept = new Map<string, Promise<string>>();
  private bytes = 0;

  constructor(
    private readonly store: Pick<OutputStore, 'putFile'>,
    private readonly predictionId: string,
    private readonly claim: string,
    private readonly limitBytes: number = OUTPUT_LIMITS.fileBytes,
  ) {}

  /** `value` (parsed JSON) with every data URL in it kept, and replaced by its reference. */
  async keep(value: unknown): Promise<unknown> {
    if (!someString(value, isDataUrl)) return value;
    return mapStringsInOrder(value, (text) => this.keepOne(text));
  }

  /** A streamed piece: a data URL, or the JSON text of an item that holds some. */
  async keepPiece(piece: string): Promise<string> {
    if (isDataUrl(piece)) return this.keepOne(piece);
    if (!piece.includes('"data:')) return piece;
    try {
      return JSON.stringify(await this.keep(JSON.parse(piece)));
    } catch (error) {
      if (error instanceof SyntaxError) return piece;
      throw error;
    }
  }

  private keepOne(text: string): Promise<string> {
    const file = parseDataUrl(text);
    if (file === null) return Promise.resolve(text);
    const digest = createHash('sha256').update(text).digest('hex');
    const known = this.kept.get(digest);
    if (known) return known;
    this.bytes += file.bytes.byteLength;
    if (this.bytes > this.limitBytes) return Promise.reject(new OutputFilesTooLarge(this.bytes, this.limitBytes));
    const index = this.kept.size;
    const stored = this.store.putFile(this.predictionId, this.claim, index, file).then(fileReference);
    this.kept.set(digest, stored);
    // A failed store is forgotten, so that the next look (or the end) tries again.
    stored.catch(() => {
      this.kept.delete(digest);
      this.bytes -= file.bytes.byteLength;
    });
    return stored;
  }
}
