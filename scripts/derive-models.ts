import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import * as z from 'zod';
import path from 'node:path';
import { deriveModel, repositoryPython } from '../local/model-env.ts';
import { REPO_ROOT } from '../local/paths.ts';
import { readCogConfig } from '../shared/adapters/cog-files.ts';
import { derivedModel, type DerivedModel } from '../shared/catalog/derived-model.ts';
import { manifestFile } from '../shared/catalog/manifest.ts';
import manifestJson from '../models/manifest.json' with { type: 'json' };

/**
 * `npm run models`: derives every manifest model's schemas from its Cog predictor (in the
 * repository's Python environment) and writes models/schemas.json, which the API and the worker
 * read (the file is committed: a test checks it against the predictors).
 */
export const deriveManifestModels = async (): Promise<Record<string, DerivedModel>> => {
  const committed = committedSchemas();
  const derived: Record<string, DerivedModel> = {};
  for (const entry of manifestFile.parse(manifestJson).models) {
    const folder = path.resolve(REPO_ROOT, entry.predictor);
    const fresh = await deriveModel(repositoryPython(), folder, readCogConfig(folder));
    const before = committed[entry.id];
    // The same interface keeps its time: a version is new only when what it derives changes (its README is not its interface).
    derived[entry.id] =
      before && isDeepStrictEqual(interfaceOf(before), interfaceOf(fresh))
        ? { ...fresh, derivedAt: before.derivedAt }
        : fresh;
  }
  return derived;
};

export const SCHEMAS_FILE = path.join(REPO_ROOT, 'models', 'schemas.json');

const committedSchemas = (): Record<string, DerivedModel> => {
  if (!existsSync(SCHEMAS_FILE)) return {};
  const parsed = z.record(z.string(), derivedModel).safeParse(JSON.parse(readFileSync(SCHEMAS_FILE, 'utf8')));
  return parsed.success ? parsed.data : {};
};

/** What a derivation says of a predictor's interface: not when it was made, nor its README. */
export const interfaceOf = (derived: DerivedModel): Omit<DerivedModel, 'derivedAt' | 'readme'> =>
  Object.fromEntries(Object.entries(derived).filter(([key]) => key !== 'derivedAt' && key !== 'readme')) as Omit<
    DerivedModel,
    'derivedAt' | 'readme'
  >;

if (import.meta.main) {
  const derived = await deriveManifestModels();
  writeFileSync(SCHEMAS_FILE, `${JSON.stringify(derived, null, 2)}\n`);
  console.log(`wrote ${path.relative(REPO_ROOT, SCHEMAS_FILE)}: ${Object.keys(derived).join(', ')}`);
}
