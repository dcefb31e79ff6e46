import type { z } from 'zod';
import type { rotatedSecretSchema } from '../../shared/api/webhook-views.ts';
import { formatTimestamp } from '../../shared/domain/clock.ts';
import { SECRET_ROTATION_GRACE_MS } from '../../shared/workflow/webhook-policy.ts';
import { accountOf } from './middleware.ts';
import { httpHandler } from './pipeline.ts';
import { json } from './respond.ts';

/**
 * POST /api/v1/webhooks/default/secret/rotate: a new secret. For a day both sign every delivery
 * (`webhook-signature` carries both, space-separated; X-Webhook-SIGNATURE only the new one's), so receivers switch without losing one.
 */
export const handler = httpHandler(async (event, _context, deps) => {
  const rotated = await deps.accounts.rotateSigningSecret(accountOf(event), deps.clock.now(), SECRET_ROTATION_GRACE_MS);
  return json(200, {
    key: rotated.current,
    previous_key_valid_until:
      rotated.previousValidUntilMs === null ? null : formatTimestamp(rotated.previousValidUntilMs),
  } satisfies z.infer<typeof rotatedSecretSchema>);
});
