import { modelCatalog, repositoryCatalog, type ModelCatalog } from '../shared/catalog/model-catalog.ts';
import { once } from './lambda-entry.ts';

let hosted: ModelCatalog | undefined;

/**
 * Where a host that runs the functions in its own process (the local runtime, local/runtime.ts)
 * hands them its catalog — the repository's with its `--model` folders, less what it withholds —
 * before any function is called.
 */
export const hostModelCatalog = (catalog: ModelCatalog): ModelCatalog => (hosted = catalog);

/**
 * This process's model catalog, built at its first use, then kept: on Lambda the repository's as
 * the synthesis that bundled the function checked it (shared/config/model-catalog.ts); in the
 * local runtime, the host's.
 */
export const processModelCatalog = once(() => hosted ?? modelCatalog({ repository: repositoryCatalog() }));
