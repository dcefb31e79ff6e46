import { PrognozError } from '../../shared/domain/errors.ts';
import { accountView } from '../../shared/api/account-view.ts';
import { accountOf } from './middleware.ts';
import { httpHandler } from './pipeline.ts';
import { json } from './respond.ts';

/**
 * GET /api/v1/account: balance, what predictions in flight hold of it, this month's spend and
 * the monthly limit, in roubles.
 */
export const handler = httpHandler(async (event, _context, deps) => {
  const account = await deps.accounts.getAccount(accountOf(event), deps.clock.now());
  if (!account) throw new PrognozError('internal_error', 'the account behind this token is gone');
  return json(200, accountView(account));
});
