import {
  ACCOUNT_DELIVERIES_PAGE_SIZE,
  accountDeliveries,
  decodeDeliveriesCursor,
} from '../../shared/api/webhook-views.ts';
import { PrognozError } from '../../shared/domain/errors.ts';
import { accountOf } from './middleware.ts';
import { httpHandler } from './pipeline.ts';
import { apiBaseOf } from './public-url.ts';
import { json } from './respond.ts';

/** GET /api/v1/webhooks/default/deliveries: the account's webhook delivery attempts, newest first, in cursor pages. */
export const handler = httpHandler(async (event, _context, deps) => {
  const account = accountOf(event);
  const cursor = event.queryStringParameters?.cursor?.trim() || null;
  const before = cursor === null ? null : decodeDeliveriesCursor(cursor);
  if (cursor !== null && before === null)
    throw new PrognozError('invalid_query', 'cursor is not one this API gave out: follow the next link as it is');
  const { deliveries, clock } = deps;
  const page = await deliveries.listForAccount(account, {
    before,
    limit: ACCOUNT_DELIVERIES_PAGE_SIZE,
    nowMs: clock.now(),
  });
  return json(200, accountDeliveries(page, apiBaseOf(event)));
});
