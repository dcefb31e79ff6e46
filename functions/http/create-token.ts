import type { z } from 'zod';
import { createTokenBodySchema, tokenView, type createdTokenSchema } from '../../shared/api/token-views.ts';
import { generateToken } from '../../shared/domain/tokens.ts';
import { parseBody, refusedBody } from './body.ts';
import { ownerAccountOf } from './middleware.ts';
import { httpHandler } from './pipeline.ts';
import { json } from './respond.ts';

/** POST /api/v1/account/tokens: a new API token with a name, shown this once (owners only). */
export const handler = httpHandler(async (event, _context, deps) => {
  const account = ownerAccountOf(event);
  const parsed = createTokenBodySchema.safeParse(parseBody(event).value);
  if (!parsed.success) throw refusedBody('invalid_body', 'a token request', parsed.error);
  const token = generateToken();
  const made = await deps.accounts.addToken(account, token, deps.clock.now(), parsed.data.name);
  return json(201, { ...tokenView(made), token } satisfies z.infer<typeof createdTokenSchema>);
});
