import { modelCatalog, repositoryCatalog } from '../../shared/catalog/model-catalog.ts';

/**
 * The repository's catalog, every model offered, built explicitly (nothing read from the
 * environment): what the tests run on unless they build their own.
 */
export const testCatalog = modelCatalog({ repository: repositoryCatalog() });
