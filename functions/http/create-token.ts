import { z } from 'zod';
import { createTokenBodySchema, tokenView, type createdTokenSchema } from '../../shared/api/token-views.ts';
import { PrognozError } from '../../shared/domain/errors.ts';
import { generateToken } from '../../shared/domain/tokens.ts';
import { parseBody } from './body.ts';
import { apiDeps } from './deps.ts';
import { ownerAccountOf } from './middleware.ts';
import { httpHandler } from './pipeline.ts';
import { json } from './respond.ts';

/** POST /api/v1/account/tokens: a new API token with a name, shown this once (owners only). */
export const handler = httpHandler(async (event) => {
  const account = ownerAccountOf(event);
  const body = parseBody(event);
  const parsed = createTokenBodySchema.safeParse(body.value);
  if (!parsed.success) {
    throw new PrognozError('invalid_body', `the body is not a token request: ${z.prettifyError(parsed.error)}`, {
      fields: parsed.error.issues.map((issue) => ({ field: issue.path.join('.') || '(body)', message: issue.message })),
    });
  }
  const deps = apiDeps();
  const token = generateToken();
  const id = await deps.accounts.addToken(account, token, deps.clock.now(), parsed.data.name);
  const made = (await deps.accounts.listTokens(account)).find((listed) => listed.id === id);
  if (!made) throw new PrognozError('internal_error', 'the new token was not found after it was stored');
  return json(201, { ...tokenView(made), token } satisfies z.infer<typeof createdTokenSchema>);
});
