import { readFileSync } from 'node:fs';
import { catalog, manifestFile, type Catalog } from '../catalog/manifest.ts';
import { modelCatalog, REPOSITORY_MANIFEST, repositoryCatalog, type ModelCatalog } from '../catalog/model-catalog.ts';
import type { Environment } from './environment.ts';

/** A catalog file beside the repository's (a local run's `--model` flags write one): its path. */
export const EXTRA_CATALOG_ENV = 'PROGNOZ_MODEL_CATALOG';

/**
 * Models of the catalog this run does not offer, as comma-separated ids: the local runtime names
 * those whose weights are absent (local/weights.ts). Unset on AWS, where every model is offered.
 */
export const WITHHELD_MODELS_ENV = 'PROGNOZ_WITHHELD_MODELS';

/** The extra catalog `env` names, read and checked; null where it names none. */
export const extraCatalogOf = (env: Environment): Catalog | null => {
  const file = env[EXTRA_CATALOG_ENV];
  return file ? catalog.parse(JSON.parse(readFileSync(file, 'utf8'))) : null;
};

/** The ids `env` withholds. */
export const withheldModelsOf = (env: Environment): string[] =>
  (env[WITHHELD_MODELS_ENV] ?? '').split(',').filter(Boolean);

/** The repository's catalog, its manifest checked (a slip in models/manifest.json is refused here). */
export const checkedRepositoryCatalog = (): Catalog => repositoryCatalog(manifestFile.parse(REPOSITORY_MANIFEST));

/**
 * A process's model catalog, as its environment makes it: the repository's, with the extra
 * catalog file PROGNOZ_MODEL_CATALOG names, less the models PROGNOZ_WITHHELD_MODELS names. For
 * the composition roots, each of which builds it once (it reads that file).
 */
export const loadModelCatalog = (env: Environment): ModelCatalog =>
  modelCatalog({ repository: checkedRepositoryCatalog(), extra: extraCatalogOf(env), withheld: withheldModelsOf(env) });
