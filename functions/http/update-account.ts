import { accountChangeSchema, accountView, monthlyLimitKopecksOf } from '../../shared/api/account-view.ts';
import { PrognozError } from '../../shared/domain/errors.ts';
import { parseBody, refusedBody } from './body.ts';
import { ownerAccountOf } from './middleware.ts';
import { httpHandler } from './pipeline.ts';
import { json } from './respond.ts';

/** PATCH /api/v1/account: the owner sets or removes the monthly limit (owners only). */
export const handler = httpHandler(async (event, _context, deps) => {
  const account = ownerAccountOf(event, 'change the monthly limit');
  const parsed = accountChangeSchema.safeParse(parseBody(event).value);
  if (!parsed.success) throw refusedBody('invalid_body', 'an account change', parsed.error);
  await deps.accounts.setMonthlyLimit(account, monthlyLimitKopecksOf(parsed.data));
  const changed = await deps.accounts.getAccount(account, deps.clock.now());
  if (!changed) throw new PrognozError('internal_error', 'the account behind this sign-in is gone');
  return json(200, accountView(changed));
});
