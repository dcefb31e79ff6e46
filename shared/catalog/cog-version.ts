/**
 * Cog's runtime (coglet, from the `cog` Python package) that runs every model, locally and in every
 * image: one pinned version, so that every model serves the same HTTP API the worker drives. Its
 * own module, so that what only names it (the API's version objects) does not bundle a YAML parser.
 */
export const COG_VERSION = '0.23.1';
