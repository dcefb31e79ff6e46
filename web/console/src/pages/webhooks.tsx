import { useState } from 'preact/hooks';
import { get, request, sameOrigin } from '../api.ts';
import type { WebhookDeliveries } from '../types.ts';
import { CopyButton, ErrorNote, Loading, useLoad, when } from '../ui.tsx';
import { DeliveryTable } from './prediction.tsx';

interface RecentDeliveries {
  readonly results: readonly (WebhookDeliveries['attempts'][number] & { prediction_id: string })[];
  readonly next: string | null;
}

const Secret = () => {
  const [secret, setSecret] = useState<string | null>(null);
  const [rotatedUntil, setRotatedUntil] = useState<string | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const reveal = async () => {
    try {
      setSecret((await get<{ key: string }>('/webhooks/default/secret')).key);
      setError(null);
    } catch (failure) {
      setError(failure as Error);
    }
  };
  const rotate = async () => {
    if (
      !confirm(
        'Rotate the signing secret? Webhooks are signed with both secrets for a while, then only with the new one.',
      )
    )
      return;
    try {
      const rotated = await request<{ key: string; previous_key_valid_until: string | null }>(
        'POST',
        '/webhooks/default/secret/rotate',
      );
      setSecret(rotated.key);
      setRotatedUntil(rotated.previous_key_valid_until);
      setError(null);
    } catch (failure) {
      setError(failure as Error);
    }
  };
  return (
    <>
      <p>
        Every webhook carries <code>webhook-signature</code>: an HMAC-SHA256 of{' '}
        <code>webhook-id.webhook-timestamp.body</code> with this secret (Standard Webhooks). Verify it before you trust
        a webhook.
      </p>
      <p class="secret">
        {secret === null ? (
          <>
            <code aria-label="Signing secret, hidden">whsec_••••••••••••••••</code>{' '}
            <button type="button" class="secondary" onClick={() => void reveal()}>
              Reveal secret
            </button>
          </>
        ) : (
          <>
            <code data-testid="signing-secret">{secret}</code> <CopyButton text={secret} label="Copy secret" />
          </>
        )}{' '}
        <button type="button" class="danger" onClick={() => void rotate()}>
          Rotate secret
        </button>
      </p>
      <p class="muted">
        Rotating makes a new secret at once. For a grace period the previous secret still signs too — each webhook's{' '}
        <code>webhook-signature</code> then carries two signatures — so your receivers can switch over without losing a
        webhook; then only the new one signs.
      </p>
      {rotatedUntil ? <p role="status">Rotated. The previous secret also signs until {when(rotatedUntil)}.</p> : null}
      <ErrorNote error={error} />
    </>
  );
};

export const WebhooksPage = () => {
  const [page, setPage] = useState('/webhooks/default/deliveries');
  const deliveries = useLoad(() => get<RecentDeliveries>(page), page);
  return (
    <section aria-labelledby="webhooks-title">
      <h1 id="webhooks-title">Webhooks</h1>
      <h2>Signing secret</h2>
      <Secret />
      <h2>Recent deliveries</h2>
      <ErrorNote error={deliveries.error} />
      {deliveries.data === null ? (
        deliveries.error ? null : (
          <Loading what="deliveries" />
        )
      ) : (
        <>
          <DeliveryTable attempts={deliveries.data.results} withPrediction />
          {deliveries.data.next ? (
            <button
              type="button"
              class="secondary"
              onClick={() => deliveries.data?.next && setPage(sameOrigin(deliveries.data.next))}
            >
              Older deliveries
            </button>
          ) : null}
        </>
      )}
    </section>
  );
};
