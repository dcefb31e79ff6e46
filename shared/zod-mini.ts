import { config } from 'zod/mini';
import english from 'zod/v4/locales/en.js';

/**
 * zod's mini API, which the modules a function loads at its start build their schemas with: its
 * classic API costs a cold start some 17 ms more (bench §4), and only the OpenAPI document and the
 * tools need its methods. Mini leaves zod's messages unset ("Invalid input"), where classic sets
 * English ones at its import: they are set here, so that an input's errors read the same whichever
 * API a process loaded. Imported as `import * as z from '…/zod-mini.ts'`; `z.core` names types only,
 * for that namespace keeps all of zod's core and every locale in a bundle.
 */
config(english());

export * from 'zod/mini';
// The error class by name, for `instanceof`: mini exports it only inside `z.core`.
export { $ZodError } from 'zod/v4/core';
