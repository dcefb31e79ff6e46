import type { z } from 'zod';
import type { webhookSecretSchema } from '../../shared/api/webhook-views.ts';
import { PrognozError } from '../../shared/domain/errors.ts';
import { accountOf } from './middleware.ts';
import { httpHandler } from './pipeline.ts';
import { json } from './respond.ts';

/** GET /api/v1/webhooks/default/secret → {"key": "whsec_…"}: the secret that signs this account's webhooks. */
export const handler = httpHandler(async (event, _context, deps) => {
  const secrets = await deps.accounts.signingSecrets(accountOf(event), deps.clock.now());
  if (!secrets) throw new PrognozError('internal_error', 'this account has no signing secret');
  return json(200, { key: secrets.current } satisfies z.infer<typeof webhookSecretSchema>);
});
