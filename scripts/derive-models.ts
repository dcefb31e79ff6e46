import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { deriveModel, repositoryPython } from '../local/model-env.ts';
import { REPO_ROOT } from '../local/paths.ts';
import { readCogConfig } from '../shared/models/cog-config.ts';
import { manifestFile, type DerivedModel } from '../shared/models/manifest.ts';
import manifestJson from '../models/manifest.json' with { type: 'json' };

/**
 * `npm run models`: derives every manifest model's schemas from its Cog predictor (in the
 * repository's Python environment) and writes models/schemas.json, which the API and the worker
 * read (the file is committed: a test checks it against the predictors).
 */
export const deriveManifestModels = async (): Promise<Record<string, DerivedModel>> => {
  const derived: Record<string, DerivedModel> = {};
  for (const entry of manifestFile.parse(manifestJson).models) {
    const folder = path.resolve(REPO_ROOT, entry.predictor);
    derived[entry.id] = await deriveModel(repositoryPython(), folder, readCogConfig(folder));
  }
  return derived;
};

export const SCHEMAS_FILE = path.join(REPO_ROOT, 'models', 'schemas.json');

if (import.meta.main) {
  const derived = await deriveManifestModels();
  writeFileSync(SCHEMAS_FILE, `${JSON.stringify(derived, null, 2)}\n`);
  console.log(`wrote ${path.relative(REPO_ROOT, SCHEMAS_FILE)}: ${Object.keys(derived).join(', ')}`);
}
