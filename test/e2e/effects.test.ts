import { DescribeExecutionCommand } from '@aws-sdk/client-sfn';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { sqsEndingTeller } from '../../shared/adapters/ending-notices.ts';
import { sqsWebhookNotifier } from '../../shared/adapters/webhook-notifier.ts';
import { systemClock } from '../../shared/domain/clock.ts';
import { EFFECTS_GRACE_MS } from '../../shared/domain/phases.ts';
import type { PredictionId } from '../../shared/domain/ids.ts';
import { applyEvent } from '../../shared/use-cases/apply-event.ts';
import { finalizePrediction } from '../../shared/use-cases/finalize-prediction.ts';
import {
  accountOf,
  cancelPrediction,
  createOtherAccount,
  createPrediction,
  echoExecutionArn,
  insertPrediction,
  localPredictionStore,
  localSqs,
  localStepFunctions,
  pollUntil,
  webhookQueueUrl,
} from '../support/api.ts';
import { receiverForFile } from '../support/receiver.ts';
import { testCatalog } from '../support/catalog.ts';

const store = localPredictionStore;

const executionStatus = async (id: string): Promise<string | undefined> =>
  (await localStepFunctions().send(new DescribeExecutionCommand({ executionArn: await echoExecutionArn(id) }))).status;

const receiver = receiverForFile();

describe('side effects complete on retry', () => {
  it('a cancel that wrote `canceled` but neither stopped the execution nor queued the webhook is finished by a retry', async () => {
    const token = await createOtherAccount({ balanceKopecks: 10_000 });
    const created = await createPrediction({ sleep: 30, webhook: `${receiver().url}/cancel` }, { token });
    await pollUntil(created.json.id, (p) => p.status === 'processing', 20_000, { token });
    // The first cancel's status write, and nothing after it (as if StopExecution had failed).
    const written = await applyEvent({ store: store(), catalog: testCatalog }, created.json.id as PredictionId, {
      type: 'canceled',
      atMs: Date.now(),
      by: 'api',
    });
    expect(written.ok && written.value.after.status).toBe('canceled');
    await sleep(1500);
    expect(await executionStatus(created.json.id)).toBe('RUNNING');
    expect(receiver().accepted(created.json.id)).toEqual([]);

    const retried = await cancelPrediction(created.json.id, { token });

    expect(retried.status).toBe(200);
    expect(retried.json.status).toBe('canceled');
    expect(await executionStatus(created.json.id)).toBe('ABORTED');
    await pollUntil(created.json.id, () => receiver().accepted(created.json.id).length > 0, 20_000, { token });
    const [delivery] = receiver().accepted(created.json.id);
    expect(delivery?.headers['x-webhook-id']).toBe(`${created.json.id}.canceled`);
    expect((await accountOf(token)).held).toBe(0);
  });

  it('a Finalize that committed and then failed is retried, and the retry still sends the webhook', async () => {
    const token = await createOtherAccount({ balanceKopecks: 10_000 });
    const id = await insertPrediction(token, { webhook: `${receiver().url}/finalize` });
    // The first Finalize's write committed; it died before it queued the webhook.
    await applyEvent({ store: store(), catalog: testCatalog }, id, {
      type: 'failed',
      atMs: Date.now(),
      error: 'no worker took this prediction up in time',
      runtimeMs: null,
      by: 'workflow',
    });
    await sleep(1000);
    expect(receiver().accepted(id)).toEqual([]);

    const retried = await finalizePrediction(
      {
        store: store(),
        catalog: testCatalog,
        notifier: sqsWebhookNotifier(await webhookQueueUrl(), localSqs()),
        endingTeller: sqsEndingTeller(() => undefined, localSqs()),
        clock: systemClock,
      },
      { predictionId: id, error: { Error: 'States.Timeout', Cause: null } },
    );

    expect(retried).toEqual({ status: 'failed' });
    await pollUntil(id, () => receiver().accepted(id).length > 0, 20_000, { token });
    expect(JSON.parse(receiver().accepted(id)[0]?.body ?? '{}')).toMatchObject({ id, status: 'failed' });
    expect((await store().get(id))?.sweepAtMs).toBeNull();
  });

  it('what an ender left owed is done by the sweeper once the grace has passed', async () => {
    const token = await createOtherAccount({ balanceKopecks: 10_000 });
    const id = await insertPrediction(token, { webhook: `${receiver().url}/swept` });
    // Canceled a grace ago by someone who never got further.
    await applyEvent({ store: store(), catalog: testCatalog }, id, {
      type: 'canceled',
      atMs: Date.now() - EFFECTS_GRACE_MS - 1000,
      by: 'api',
    });

    await pollUntil(id, () => receiver().accepted(id).length > 0, 20_000, { token });
    expect(JSON.parse(receiver().accepted(id)[0]?.body ?? '{}')).toMatchObject({ id, status: 'canceled' });
    for (let i = 0; i < 50 && (await store().get(id))?.sweepAtMs !== null; i++) await sleep(100);
    expect((await store().get(id))?.sweepAtMs).toBeNull();
    expect((await accountOf(token)).held).toBe(0);
  });
});
