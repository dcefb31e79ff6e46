import { processEnvironment } from '../shared/config/environment.ts';
import { loadModelCatalog } from '../shared/config/model-catalog.ts';
import { once } from './lambda-entry.ts';

/**
 * This process's model catalog, built at its first use from the process's environment
 * (PROGNOZ_MODEL_CATALOG, PROGNOZ_WITHHELD_MODELS), then kept: on Lambda the function's own; in
 * the local runtime, which hosts every function in one process, the host's, where it sets both
 * before any function is called (local/runtime.ts).
 */
export const processModelCatalog = once(() => loadModelCatalog(processEnvironment()));
