import type { z } from 'zod';
import {
  createTokenBodySchema,
  tokenView,
  type createdTokenSchema,
  type tokenListSchema,
} from '../../shared/api/token-views.ts';
import { PrognozError } from '../../shared/domain/errors.ts';
import { generateToken } from '../../shared/domain/tokens.ts';
import { parseBody, refusedBody } from './body.ts';
import { ownerAccountOf } from './middleware.ts';
import { httpHandler } from './pipeline.ts';
import { json } from './respond.ts';

/**
 * The account's API tokens, for its owners only, one function for the three routes (a function
 * more each would cost the main stack its resources):
 * - `GET /api/v1/account/tokens`: newest first, by hint;
 * - `POST /api/v1/account/tokens`: a new one with a name, shown this once;
 * - `DELETE /api/v1/account/tokens/{id}`: refused from now on.
 */
export const handler = httpHandler(async (event, _context, deps) => {
  const account = ownerAccountOf(event);
  switch (event.httpMethod) {
    case 'POST': {
      const parsed = createTokenBodySchema.safeParse(parseBody(event).value);
      if (!parsed.success) throw refusedBody('invalid_body', 'a token request', parsed.error);
      const token = generateToken();
      const made = await deps.accounts.addToken(account, token, deps.clock.now(), parsed.data.name);
      return json(201, { ...tokenView(made), token } satisfies z.infer<typeof createdTokenSchema>);
    }
    case 'DELETE': {
      const id = event.pathParameters?.id ?? '';
      if (!(await deps.accounts.revokeToken(account, id)))
        throw new PrognozError('token_not_found', `this account has no API token ${id}`);
      return { statusCode: 204, headers: {}, body: '' };
    }
    default: {
      const tokens = await deps.accounts.listTokens(account);
      const newestFirst = [...tokens].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
      return json(200, { results: newestFirst.map(tokenView) } satisfies z.infer<typeof tokenListSchema>);
    }
  }
});
