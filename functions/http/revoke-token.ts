import { PrognozError } from '../../shared/domain/errors.ts';
import { apiDeps } from './deps.ts';
import { ownerAccountOf } from './middleware.ts';
import { httpHandler } from './pipeline.ts';

/** DELETE /api/v1/account/tokens/{id}: the token is refused from now on (owners only). */
export const handler = httpHandler(async (event) => {
  const account = ownerAccountOf(event);
  const id = event.pathParameters?.id ?? '';
  if (!(await apiDeps().accounts.revokeToken(account, id)))
    throw new PrognozError('token_not_found', `this account has no API token ${id}`);
  return { statusCode: 204, headers: {}, body: '' };
});
