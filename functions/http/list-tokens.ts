import { tokenView, type tokenListSchema } from '../../shared/api/token-views.ts';
import type { z } from 'zod';
import { ownerAccountOf } from './middleware.ts';
import { httpHandler } from './pipeline.ts';
import { json } from './respond.ts';

/** GET /api/v1/account/tokens: the account's API tokens, newest first, by hint (owners only). */
export const handler = httpHandler(async (event, _context, deps) => {
  const tokens = await deps.accounts.listTokens(ownerAccountOf(event));
  const newestFirst = [...tokens].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  return json(200, { results: newestFirst.map(tokenView) } satisfies z.infer<typeof tokenListSchema>);
});
