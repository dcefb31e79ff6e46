import { describe, expect, it } from 'vitest';
import { asAccountId } from '../../shared/domain/ids.ts';
import type { Prediction } from '../../shared/domain/prediction.ts';
import { signStandardWebhook, verifyWebhook } from '../../shared/domain/webhook-signature.ts';
import { deliverWebhook, type DeliveryDeps } from '../../shared/use-cases/deliver-webhook.ts';
import { RETRY_POLICY } from '../../shared/workflow/webhook-policy.ts';
import { inMemoryService } from '../support/in-memory/service.ts';
import { failedByWorkflow, startingPrediction } from '../support/predictions.ts';

const WEBHOOK = 'https://example.com/hook';

/** An ended prediction with a webhook, stored, and the sender's ports around it. */
const ended = async (webhook: string | null = WEBHOOK) => {
  const service = inMemoryService();
  const owner = asAccountId('acct-deliver');
  await service.accounts.createAccount(owner, service.clock.now(), { balanceKopecks: 100 });
  const created = startingPrediction({ owner, nowMs: service.clock.now(), webhook });
  const inserted = await service.store.insert(created, null);
  if (!inserted.ok) throw inserted.error;
  const failed = failedByWorkflow(created, service.clock.now());
  await service.store.replace(failed, created);
  const deps: DeliveryDeps = {
    store: service.store,
    present: (prediction: Prediction) => Promise.resolve({ id: prediction.id, status: prediction.status }),
    accounts: service.accounts,
    log: service.deliveries,
    clock: service.clock,
    post: service.post,
  };
  const secrets = await service.accounts.signingSecrets(owner, service.clock.now());
  if (!secrets) throw new Error('no signing secret');
  return { service, owner, prediction: failed, deps, secret: secrets.current };
};

describe('delivering a webhook', () => {
  it('posts the prediction as the API shows it, signed for this attempt, and logs the attempt', async () => {
    const { service, prediction, deps, secret } = await ended();
    const result = await deliverWebhook(deps, { predictionId: prediction.id, status: 'failed' }, 1);
    expect(result).toEqual({ kind: 'delivered', status: 204 });
    const [posted] = service.receiver.posted;
    if (!posted) throw new Error('nothing was posted');
    const body = JSON.stringify({ id: prediction.id, status: 'failed' });
    const timestamp = String(Math.floor(service.clock.now() / 1000));
    expect(posted).toMatchObject({ url: WEBHOOK, body, timeoutMs: RETRY_POLICY.attemptTimeoutSeconds * 1000 });
    expect(posted.headers).toMatchObject({
      'x-webhook-id': `${prediction.id}.failed`,
      'x-webhook-timestamp': timestamp,
      'webhook-id': `${prediction.id}.failed`,
      'webhook-signature': signStandardWebhook(secret, `${prediction.id}.failed`, Number(timestamp), body),
    });
    const headers = {
      id: posted.headers['x-webhook-id'] ?? '',
      timestamp: posted.headers['x-webhook-timestamp'] ?? '',
      signature: posted.headers['x-webhook-signature'] ?? '',
    };
    expect(verifyWebhook([secret], headers, body, { nowSeconds: Number(timestamp) })).toBe(true);
    expect(verifyWebhook(['whsec_other'], headers, body, { nowSeconds: Number(timestamp) })).toBe(false);
    expect(await service.deliveries.list(prediction.id)).toEqual([
      expect.objectContaining({ attempt: 1, outcome: 'delivered', statusCode: 204, error: null, event: 'failed' }),
    ]);
  });

  it('signs with both secrets during a rotation, the header of record with the new one alone', async () => {
    const { service, owner, prediction, deps, secret: previous } = await ended();
    const rotated = await service.accounts.rotateSigningSecret(owner, service.clock.now(), 60_000);
    await deliverWebhook(deps, { predictionId: prediction.id, status: 'failed' }, 1);
    const headers = service.receiver.posted[0]?.headers ?? {};
    const timestamp = Number(headers['x-webhook-timestamp']);
    const body = service.receiver.posted[0]?.body ?? '';
    expect(headers['webhook-signature']?.split(' ')).toEqual([
      signStandardWebhook(rotated.current, `${prediction.id}.failed`, timestamp, body),
      signStandardWebhook(previous, `${prediction.id}.failed`, timestamp, body),
    ]);
    const ofRecord = {
      id: headers['x-webhook-id'] ?? '',
      timestamp: String(timestamp),
      signature: headers['x-webhook-signature'] ?? '',
    };
    expect(verifyWebhook([rotated.current], ofRecord, body, { nowSeconds: timestamp })).toBe(true);
    expect(verifyWebhook([previous], ofRecord, body, { nowSeconds: timestamp })).toBe(false);
  });

  it('fails an attempt the receiver refuses, to be retried after its delay, and dead-letters the last', async () => {
    const { service, prediction, deps } = await ended();
    service.receiver.answerWith({ status: 500 }, { status: 302 }, { error: 'no answer within 10 s' }, { status: 503 });
    const attempts = 1 + RETRY_POLICY.retryDelaysSeconds.length;
    const results = [];
    for (let attempt = 1; attempt <= attempts; attempt++) {
      results.push(await deliverWebhook(deps, { predictionId: prediction.id, status: 'failed' }, attempt));
      service.clock.advance((RETRY_POLICY.retryDelaysSeconds[attempt - 1] ?? 0) * 1000);
    }
    expect(results).toEqual([
      { kind: 'failed', reason: 'the receiver answered HTTP 500', final: false },
      { kind: 'failed', reason: 'the receiver answered HTTP 302', final: false },
      { kind: 'failed', reason: 'no answer within 10 s', final: false },
      { kind: 'failed', reason: 'the receiver answered HTTP 503', final: true },
    ]);
    // Each retry but the last waits its turn of the policy's growing delays.
    expect(RETRY_POLICY.retryDelaysSeconds).toEqual([...RETRY_POLICY.retryDelaysSeconds].sort((a, b) => a - b));
    const logged = await service.deliveries.list(prediction.id);
    expect(logged.map((attempt) => [attempt.attempt, attempt.outcome, attempt.statusCode, attempt.error])).toEqual([
      [1, 'failed', 500, null],
      [2, 'failed', 302, null],
      [3, 'failed', null, 'no answer within 10 s'],
      [4, 'dead_lettered', 503, null],
    ]);
    // The same delivery every time: receivers drop repeats by its id.
    expect(new Set(service.receiver.posted.map((posted) => posted.headers['x-webhook-id']))).toEqual(
      new Set([`${prediction.id}.failed`]),
    );
  });

  it('logs how long the receiver took, by the injected clock', async () => {
    const { service, prediction, deps } = await ended();
    const slow: DeliveryDeps = {
      ...deps,
      post: async (url, request) => {
        service.clock.advance(250);
        return service.post(url, request);
      },
    };
    await deliverWebhook(slow, { predictionId: prediction.id, status: 'failed' }, 1);
    expect((await service.deliveries.list(prediction.id))[0]?.durationMs).toBe(250);
  });

  it('sends nothing for a prediction with no webhook, or an event it did not ask for', async () => {
    const withWebhook = await ended();
    const logs = {
      predictionId: withWebhook.prediction.id,
      event: 'logs',
      atMs: withWebhook.service.clock.now(),
    } as const;
    expect(await deliverWebhook(withWebhook.deps, logs, 1)).toEqual({
      kind: 'skipped',
      reason: 'logs events were not asked for',
    });
    const without = await ended(null);
    expect(await deliverWebhook(without.deps, { predictionId: without.prediction.id, status: 'failed' }, 1)).toEqual({
      kind: 'skipped',
      reason: 'no webhook registered',
    });
    expect([...withWebhook.service.receiver.posted, ...without.service.receiver.posted]).toEqual([]);
    expect(await withWebhook.service.deliveries.list(withWebhook.prediction.id)).toEqual([]);
  });
});
