import { mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { ModelDefinition } from '../shared/catalog/definition.ts';
import { inputForModel } from '../shared/catalog/model-input.ts';
import type { RunInputs } from '../shared/ports/run-inputs.ts';
import type { SharedFolder } from './shared-folders.ts';

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

/**
 * The input the model is given (inputForModel): every file input fetched through the guard into
 * the run's folder and replaced by the address the model server fetches it at (`urlOf`: coglet
 * makes a `cog.Path` or `cog.File` of an http URL, not of a local path).
 */
export const prepareInputs = async (
  model: Pick<ModelDefinition, 'files' | 'nullWhenOmitted'>,
  input: Readonly<Record<string, unknown>>,
  folder: { readonly path: string; readonly urlOf: (file: string) => string },
  download: Download,
  signal: AbortSignal,
): Promise<Record<string, unknown>> => {
  await mkdir(folder.path, { recursive: true });
  return inputForModel(model, input, async ({ name, url, index }) => {
    const target = path.join(folder.path, fileNameOf(name, url, index));
    await download(url, target, signal);
    return folder.urlOf(target);
  });
};

export const removeRunFolder = (folder: string): Promise<void> => rm(folder, { recursive: true, force: true });

/** Runs whose folders outlived their worker: their ids, to cancel on the model server. */
export const leftoverRuns = async (inputsDir: string): Promise<string[]> => {
  const entries = await readdir(inputsDir, { withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isDirectory()).map((entry) => decodeURIComponent(entry.name));
};

/**
 * The worker's run inputs: each run's files fetched into a folder of its own under `dir`, served to
 * the model server while the run is prepared and goes on (`share`: CogCallbacks.shareInputs), and
 * removed when it is over. A folder left behind marks a run a dead worker left (leftoverRuns).
 */
export const folderRunInputs = (options: {
  readonly dir: string;
  readonly model: Pick<ModelDefinition, 'files' | 'nullWhenOmitted'>;
  readonly download: Download;
  readonly share: (folder: string) => SharedFolder;
}): RunInputs => {
  const shared = new Map<string, SharedFolder>();
  return {
    prepare: (predictionId, input, signal) => {
      const folder = runFolder(options.dir, predictionId);
      shared.get(predictionId)?.close();
      const sharing = options.share(folder);
      shared.set(predictionId, sharing);
      return prepareInputs(options.model, input, { path: folder, urlOf: sharing.urlOf }, options.download, signal);
    },
    release: async (predictionId) => {
      shared.get(predictionId)?.close();
      shared.delete(predictionId);
      await removeRunFolder(runFolder(options.dir, predictionId));
    },
  };
};
