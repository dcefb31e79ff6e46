import { accountChangeSchema, accountView, monthlyLimitKopecksOf } from '../../shared/api/account-view.ts';
import { PrognozError } from '../../shared/domain/errors.ts';
import { parseBody, refusedBody } from './body.ts';
import { accountOf, ownerAccountOf } from './middleware.ts';
import { httpHandler } from './pipeline.ts';
import { json } from './respond.ts';

/**
 * The account, one function for its two routes (a function more would cost the main stack its
 * resources):
 * - `GET /api/v1/account`: who it is, its balance, what predictions in flight hold of it, this
 *   month's spend and the monthly limit, in roubles;
 * - `PATCH /api/v1/account`: the owner sets or removes the monthly limit (owners only).
 */
export const handler = httpHandler(async (event, _context, deps) => {
  if (event.httpMethod === 'PATCH') {
    const account = ownerAccountOf(event, 'change the monthly limit');
    const parsed = accountChangeSchema.safeParse(parseBody(event).value);
    if (!parsed.success) throw refusedBody('invalid_body', 'an account change', parsed.error);
    await deps.accounts.setMonthlyLimit(account, monthlyLimitKopecksOf(parsed.data));
  }
  const account = await deps.accounts.getAccount(accountOf(event), deps.clock.now());
  if (!account) throw new PrognozError('internal_error', 'the account behind this caller is gone');
  return json(200, accountView(account));
});
