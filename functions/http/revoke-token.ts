import { PrognozError } from '../../shared/domain/errors.ts';
import { ownerAccountOf } from './middleware.ts';
import { httpHandler } from './pipeline.ts';

/** DELETE /api/v1/account/tokens/{id}: the token is refused from now on (owners only). */
export const handler = httpHandler(async (event, _context, deps) => {
  const account = ownerAccountOf(event);
  const id = event.pathParameters?.id ?? '';
  if (!(await deps.accounts.revokeToken(account, id)))
    throw new PrognozError('token_not_found', `this account has no API token ${id}`);
  return { statusCode: 204, headers: {}, body: '' };
});
