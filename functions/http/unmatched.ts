import type { APIGatewayProxyEvent } from 'aws-lambda';
import { matchRoute } from '../../shared/api/routes.ts';
import { PrognozError } from '../../shared/domain/errors.ts';

/** The answer to a request no route takes: 405 with `Allow` on a known path, 404 elsewhere. */
export const unmatchedRequest = (event: Pick<APIGatewayProxyEvent, 'httpMethod' | 'path'>): PrognozError => {
  const match = matchRoute(event.httpMethod, event.path);
  if (match.kind === 'method_not_allowed')
    return new PrognozError(
      'method_not_allowed',
      `${event.httpMethod} is not allowed here; use ${match.allow.join(' or ')}`,
      { allow: match.allow },
    );
  return new PrognozError('route_not_found', `there is nothing at ${event.httpMethod} ${event.path}`);
};
