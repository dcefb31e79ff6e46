import { mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { ModelDefinition } from '../shared/models/definition.ts';

/** Fetches one file input to a local file (the guarded download); rejects with a reason to show. */
export type Download = (url: string, file: string, signal: AbortSignal) => Promise<unknown>;

/** A run's folder under the inputs folder: its fetched files, and the mark that it runs. */
export const runFolder = (inputsDir: string, predictionId: string): string =>
  path.join(inputsDir, encodeURIComponent(predictionId));

/** A file name that keeps the URL's extension (decoders look at it) and nothing else of it. */
const fileNameOf = (name: string, url: string, index: number | null): string => {
  const extension = path
    .extname(new URL(url).pathname)
    .slice(0, 16)
    .replace(/[^A-Za-z0-9.]/g, '');
  return `${name}${index === null ? '' : `-${index}`}${extension}`;
};

export class InputFetchFailed extends Error {
  override readonly name = 'InputFetchFailed';
}

/**
 * The input the model is given: every file input fetched through the guard into the run's
 * folder and replaced by the address the model server fetches it at (`urlOf`: coglet makes a
 * `cog.Path` or `cog.File` of an http URL, not of a local path), and every input that may be null
 * and was omitted given as null (coglet's own default for those).
 */
export const prepareInputs = async (
  model: Pick<ModelDefinition, 'files' | 'nullWhenOmitted'>,
  input: Readonly<Record<string, unknown>>,
  folder: { readonly path: string; readonly urlOf: (file: string) => string },
  download: Download,
  signal: AbortSignal,
): Promise<Record<string, unknown>> => {
  await mkdir(folder.path, { recursive: true });
  const prepared: Record<string, unknown> = { ...input };
  for (const name of model.nullWhenOmitted) if (!(name in prepared)) prepared[name] = null;
  const files = model.files;
  for (const file of files) {
    const value = input[file.name];
    if (value === undefined || value === null) continue;
    const urls = Array.isArray(value) ? (value as unknown[]) : [value];
    const local: string[] = [];
    for (const [index, url] of urls.entries()) {
      if (typeof url !== 'string') continue;
      const target = path.join(folder.path, fileNameOf(file.name, url, file.list ? index : null));
      try {
        await download(url, target, signal);
      } catch (error) {
        throw new InputFetchFailed(
          `the input ${file.name} could not be fetched: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      local.push(folder.urlOf(target));
    }
    prepared[file.name] = file.list ? local : local[0];
  }
  return prepared;
};

export const removeRunFolder = (folder: string): Promise<void> => rm(folder, { recursive: true, force: true });

/** Runs whose folders outlived their worker: their ids, to cancel on the model server. */
export const leftoverRuns = async (inputsDir: string): Promise<string[]> => {
  const entries = await readdir(inputsDir, { withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isDirectory()).map((entry) => decodeURIComponent(entry.name));
};
