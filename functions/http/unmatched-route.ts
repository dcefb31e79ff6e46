import { unconfiguredHttpHandler } from './pipeline.ts';
import { unmatchedRequest } from './unmatched.ts';

/** Every request no route takes: 405 with `Allow` on a known path, 404 elsewhere. */
export const handler = unconfiguredHttpHandler((event) => {
  throw unmatchedRequest(event);
});
