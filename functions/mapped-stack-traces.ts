/**
 * Error stacks told in the TypeScript sources, read from the bundle's source map when a stack is
 * first written out, not as the bundle loads: Node's `--enable-source-maps` reads and parses the
 * whole map before the first line of a function runs (12 ms of create's cold start, 5 of the SDK's
 * floor: bench/results/2026-12-07-cold-start.md), for the few starts that ever write a stack.
 *
 * Every Lambda bundle starts with this module (LAMBDA_BUNDLING.inject). Its frames read as Node's
 * own mapped frames do: the original file (where the map places it beside the bundle: on Lambda,
 * `/functions/…` for the repository's `functions/…`), line and column, and the function's original
 * name as its caller's call names it.
 */
import { readFileSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { fileURLToPath } from 'node:url';

const BUNDLE_URL = import.meta.url;

/** A frame as V8 gives it to `Error.prepareStackTrace`, which writes itself as its default stack does. */
type Frame = NodeJS.CallSite & { toString(): string };

/** The bundle's source map once read; `null` where it cannot be (then frames stay as they are). */
let sourceMap: SourceMap | null | undefined;

const bundleSourceMap = (): SourceMap | null => {
  if (sourceMap === undefined) {
    try {
      sourceMap = new SourceMap(
        JSON.parse(readFileSync(`${fileURLToPath(BUNDLE_URL)}.map`, 'utf8')) as SourceMapPayload,
      );
    } catch {
      sourceMap = null;
    }
  }
  return sourceMap;
};

interface Origin {
  readonly fileName: string;
  readonly lineNumber: number;
  readonly columnNumber: number;
  readonly name?: string;
}

const originOf = (map: SourceMap, frame: Frame | undefined): Origin | undefined => {
  if (frame?.getFileName() !== BUNDLE_URL) return undefined;
  const origin: Partial<Origin> = map.findOrigin(frame.getLineNumber() ?? 0, frame.getColumnNumber() ?? 0);
  return origin.fileName === undefined ? undefined : (origin as Origin);
};

/** A source's path, as the map names it relative to itself (Node's own mapping reads it so). */
const sourcePath = (source: string): string => {
  try {
    return fileURLToPath(new URL(source, `${BUNDLE_URL}.map`));
  } catch {
    return source;
  }
};

const mappedFrame = (map: SourceMap, frame: Frame, caller: Frame | undefined): string => {
  const text = frame.toString();
  const origin = originOf(map, frame);
  if (origin === undefined) return text;
  const at = `${BUNDLE_URL}:${String(frame.getLineNumber())}:${String(frame.getColumnNumber())}`;
  let mapped = text.replace(
    at,
    `${sourcePath(origin.fileName)}:${String(origin.lineNumber)}:${String(origin.columnNumber)}`,
  );
  const minifiedName = frame.getFunctionName();
  const originalName = originOf(map, caller)?.name;
  if (minifiedName && originalName && originalName !== minifiedName) {
    mapped = mapped.replace(`${minifiedName} (`, `${originalName} (`);
  }
  return mapped;
};

const headerOf = (error: Error): string => {
  try {
    return Error.prototype.toString.call(error);
  } catch {
    return '<error>';
  }
};

Error.prepareStackTrace = (error: Error, frames: Frame[]): string => {
  const map = frames.some((frame) => frame.getFileName() === BUNDLE_URL) ? bundleSourceMap() : null;
  const lines = frames.map((frame, i) => {
    try {
      return map === null ? frame.toString() : mappedFrame(map, frame, frames[i + 1]);
    } catch {
      return frame.toString();
    }
  });
  return [headerOf(error), ...lines.map((line) => `    at ${line}`)].join('\n');
};
