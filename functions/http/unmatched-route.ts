import { PrognozError } from '../../shared/domain/errors.ts';
import { unconfiguredHttpHandler } from './pipeline.ts';
import { matchRoute } from '../../shared/api/routes.ts';

/** Every request no route takes: 405 with `Allow` on a known path, 404 elsewhere. */
export const handler = unconfiguredHttpHandler((event) => {
  const match = matchRoute(event.httpMethod, event.path);
  if (match.kind === 'method_not_allowed') {
    throw new PrognozError(
      'method_not_allowed',
      `${event.httpMethod} is not allowed here; use ${match.allow.join(' or ')}`,
      {
        allow: match.allow,
      },
    );
  }
  throw new PrognozError('route_not_found', `there is nothing at ${event.httpMethod} ${event.path}`);
});
