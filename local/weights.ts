import { existsSync } from 'node:fs';
import path from 'node:path';
import type { ManifestEntry } from '../shared/catalog/manifest.ts';
import { REPO_ROOT } from './paths.ts';

/** Where a model's image has the weights its cog.yaml downloaded, a folder per name (models/transcribe/weights.py looks there first). */
export const IMAGE_WEIGHTS_DIR = '/opt/whisper';
/** What a folder of weights holds when the weights are there (CTranslate2's model file). */
const WEIGHTS_FILE = 'model.bin';

/**
 * Where local copies of weights are kept, a folder per name: PROGNOZ_WEIGHTS_DIR (relative to the
 * repository), by default .prognoz/weights. `npm run weights -- <name>` fetches one there.
 */
export const localWeightsDir = (): string =>
  path.resolve(REPO_ROOT, process.env.PROGNOZ_WEIGHTS_DIR ?? path.join('.prognoz', 'weights'));

/**
 * Whether the local runtime offers a model: yes, unless its manifest entry requires weights
 * (`local.requiresWeights`) that neither the weights folder nor an image's folder has.
 */
export const offeredLocally = (
  entry: Pick<ManifestEntry, 'local'>,
  weightsDir: string,
  exists: (file: string) => boolean = existsSync,
): boolean => {
  const name = entry.local?.requiresWeights;
  return (
    name === undefined || [weightsDir, IMAGE_WEIGHTS_DIR].some((dir) => exists(path.join(dir, name, WEIGHTS_FILE)))
  );
};

/** The line `npm start` prints for a model it does not offer: why, and how to fetch its weights. */
export const notOfferedLine = (entry: Pick<ManifestEntry, 'id' | 'local'>, weightsDir: string): string => {
  const name = entry.local?.requiresWeights ?? '';
  const full = path.join(weightsDir, name);
  const folder = path.relative(REPO_ROOT, full).startsWith('..') ? full : path.relative(REPO_ROOT, full);
  return `${entry.id}: not offered, its weights are not in ${folder}; fetch them with \`npm run weights -- ${name}\` (needs a network) and start again`;
};
