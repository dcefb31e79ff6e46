import { tmpdir } from 'node:os';
import { StopExecutionCommand } from '@aws-sdk/client-sfn';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { sqsEndingTeller } from '../../shared/adapters/ending-notices.ts';
import { sqsWebhookNotifier } from '../../shared/adapters/webhook-notifier.ts';
import { systemClock } from '../../shared/domain/clock.ts';
import { ENDINGS } from '../../shared/domain/endings.ts';
import { phaseLimitsOf } from '../../shared/catalog/registry.ts';
import { applyEvent } from '../../shared/use-cases/apply-event.ts';
import { CogCallbacks } from '../../worker/cog-callbacks.ts';
import { cogModelServer } from '../../worker/model-server.ts';
import { folderRunInputs } from '../../worker/run-inputs.ts';
import { runPrediction } from '../../shared/use-cases/run-prediction.ts';
import { claimJob } from '../../shared/use-cases/claim-job.ts';
import type { EffectDeps } from '../../shared/use-cases/end-prediction.ts';
import {
  accountOf,
  createOtherAccount,
  createPrediction,
  echoExecutionArn,
  insertPrediction,
  localPredictionStore,
  localSqs,
  localStepFunctions,
  modelHealth,
  pollUntil,
  processNamed,
  untilTerminal,
  waitForRestart,
  webhookQueueUrl,
} from '../support/api.ts';
import { receiverForFile } from '../support/receiver.ts';
import { testCatalog } from '../support/catalog.ts';

const echoModel = testCatalog.require('prognoz/echo');

const limits = phaseLimitsOf(echoModel);
const store = localPredictionStore;

const receiver = receiverForFile();

describe('waiting is not dying', () => {
  it('four predictions queued behind each other for longer than a lease all succeed', async () => {
    const token = await createOtherAccount({ balanceKopecks: 10_000 });
    // One echo worker runs one at a time: the last waits ~15 s, far past the 4 s lease.
    const created = await Promise.all(Array.from({ length: 4 }, () => createPrediction({ sleep: 5 }, { token })));
    const done = await Promise.all(created.map((c) => untilTerminal(c.json.id, 60_000, { token })));
    expect(done.map((p) => p.status)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded']);
    expect(done.every((p) => (p.runtime ?? 0) >= 5 && (p.runtime ?? 0) < 6)).toBe(true);
    expect((await accountOf(token)).held).toBe(0);
  });

  it("a prediction that overstays its model's queue limit ends failed, saying no capacity was found, and pays its debts", async () => {
    const token = await createOtherAccount({ balanceKopecks: 10_000 });
    const id = await insertPrediction(token, { webhook: `${receiver().url}/queue-limit` });
    // Held from its creation: checked before it is overdue, which the sweeper (every 2 s) may end at once.
    expect((await accountOf(token)).held).toBeGreaterThan(0);
    // It entered the queue a queue limit ago and no worker ever took it.
    await applyEvent({ store: store(), catalog: testCatalog }, id, {
      type: 'queued',
      atMs: Date.now() - limits.queueSeconds * 1000 - 1000,
    });

    const ended = await untilTerminal(id, 20_000, { token });

    expect(ended).toMatchObject({
      status: 'failed',
      error: ENDINGS.noCapacity(limits.queueSeconds),
      runtime: null,
      cost: 0,
    });
    expect((await accountOf(token)).held).toBe(0);
    await pollUntil(id, () => receiver().accepted(id).length > 0, 20_000, { token });
    expect(JSON.parse(receiver().accepted(id)[0]?.body ?? '{}')).toMatchObject({ id, status: 'failed' });
  });

  it('a worker that receives a job past the queue limit ends it the same way, without running it', async () => {
    const token = await createOtherAccount({ balanceKopecks: 10_000 });
    const id = await insertPrediction(token);
    await applyEvent({ store: store(), catalog: testCatalog }, id, {
      type: 'queued',
      atMs: Date.now() - limits.queueSeconds * 1000 - 1000,
    });
    const notifier = sqsWebhookNotifier(await webhookQueueUrl(), localSqs());
    const taken = await claimJob(
      {
        store: store(),
        catalog: testCatalog,
        clock: systemClock,
        ids: randomUUID,
        limits,
        effects: {
          store: store(),
          catalog: testCatalog,
          notifier,
          endingTeller: sqsEndingTeller(() => undefined, localSqs()),
          stopExecution: () => Promise.resolve(),
        },
        log: () => undefined,
        countLost: () => undefined,
      },
      id,
    );
    expect(taken).toEqual({ kind: 'done', reason: ENDINGS.noCapacity(limits.queueSeconds) });
    expect((await untilTerminal(id, 5000, { token })).status).toBe('failed');
  });
});

describe('nothing stays stuck', () => {
  it('a create that died between recording the prediction and starting its workflow is started by the sweeper at its queue limit, and runs', async () => {
    const token = await createOtherAccount({ balanceKopecks: 10_000 });
    const id = await insertPrediction(token, { createdAgoMs: limits.queueSeconds * 1000 + 1000 });
    const done = await untilTerminal(id, 30_000, { token });
    expect(done).toMatchObject({ status: 'succeeded', output: { text: 'stranded' } });
    expect((await accountOf(token)).held).toBe(0);
  });

  it('a workflow stopped from outside ends its prediction failed at once, its hold released and its webhook sent', async () => {
    const token = await createOtherAccount({ balanceKopecks: 10_000 });
    const created = await createPrediction({ sleep: 30, webhook: `${receiver().url}/stopped` }, { token });
    await pollUntil(created.json.id, (p) => p.status === 'processing', 20_000, { token });

    await localStepFunctions().send(
      new StopExecutionCommand({ executionArn: await echoExecutionArn(created.json.id), cause: 'an operator' }),
    );

    const ended = await untilTerminal(created.json.id, 10_000, { token });
    expect(ended).toMatchObject({ status: 'failed', error: ENDINGS.workflowEnded('ABORTED') });
    expect((await accountOf(token)).held).toBe(0);
    await pollUntil(created.json.id, () => receiver().accepted(created.json.id).length > 0, 20_000, { token });
  });
});

describe('a lost worker loses no prediction', () => {
  it('killing the worker mid-run puts the prediction back in the queue; it is run again and billed for that run only', async () => {
    const token = await createOtherAccount({ balanceKopecks: 10_000 });
    const created = await createPrediction({ sleep: 4 }, { token });
    const first = await pollUntil(created.json.id, (p) => p.status === 'processing', 20_000, { token });
    const behind = await createPrediction({ text: 'still here' }, { token });
    const worker = await processNamed('worker:prognoz/echo');

    process.kill(worker.pid ?? 0, 'SIGKILL');

    const again = await pollUntil(
      created.json.id,
      (p) => p.status === 'processing' && p.started_at !== first.started_at,
      20_000,
      { token },
    );
    expect(again.status).toBe('processing');
    const done = await untilTerminal(created.json.id, 30_000, { token });
    expect(done.status).toBe('succeeded');
    // Billed for the run that finished (~4 s), not for the lost one too.
    expect(done.runtime ?? 0).toBeGreaterThanOrEqual(4);
    expect(done.runtime ?? 0).toBeLessThan(5);
    expect(done.cost).toBe(0.05);
    expect(await untilTerminal(behind.json.id, 30_000, { token })).toMatchObject({
      status: 'succeeded',
      output: { text: 'still here' },
    });
    expect((await accountOf(token)).held).toBe(0);
    await waitForRestart('worker:', worker.pid ?? 0);
  });

  it('a prediction whose worker is lost as often as its model allows ends failed, saying so, and costs nothing', async () => {
    const token = await createOtherAccount({ balanceKopecks: 10_000 });
    const created = await createPrediction({ sleep: 30 }, { token });
    let started: string | null = null;
    for (let attempt = 1; attempt <= limits.maxAttempts; attempt++) {
      const running = await pollUntil(
        created.json.id,
        (p) => p.status === 'processing' && p.started_at !== started,
        30_000,
        { token },
      );
      started = running.started_at;
      const worker = await processNamed('worker:prognoz/echo');
      process.kill(worker.pid ?? 0, 'SIGKILL');
      await waitForRestart('worker:', worker.pid ?? 0);
    }
    const ended = await untilTerminal(created.json.id, 30_000, { token });
    expect(ended).toMatchObject({ status: 'failed', error: ENDINGS.workerLost(limits.maxAttempts), cost: 0 });
    expect((await accountOf(token)).held).toBe(0);
  });

  it('killing the model server mid-run puts the prediction back in the queue; it runs again on the restarted server', async () => {
    const token = await createOtherAccount({ balanceKopecks: 10_000 });
    const created = await createPrediction({ sleep: 3, text: 'after the crash' }, { token });
    await pollUntil(created.json.id, (p) => p.status === 'processing', 20_000, { token });
    const model = await processNamed('model:prognoz/echo');

    process.kill(model.pid ?? 0, 'SIGKILL');

    const seen = new Set<string>();
    const done = await pollUntil(
      created.json.id,
      (p) => {
        seen.add(p.status);
        return p.status === 'succeeded' || p.status === 'failed';
      },
      30_000,
      { token },
    );
    expect(done).toMatchObject({ status: 'succeeded', output: { text: 'after the crash' } });
    expect(seen).toContain('queued');
    await waitForRestart('model:', model.pid ?? 0);
  });
});

/** A prediction of `token`'s, claimed as a worker would, to be run here on the echo model's server. */
const claimedHere = async (token: string, input: { text: string; sleep: number }) => {
  const id = await insertPrediction(token);
  await applyEvent({ store: store(), catalog: testCatalog }, id, { type: 'queued', atMs: Date.now() });
  const claimed = await applyEvent({ store: store(), catalog: testCatalog }, id, {
    type: 'claimed',
    atMs: Date.now(),
    claim: randomUUID(),
  });
  if (!claimed.ok || claimed.value.after.status !== 'processing') throw new Error('not claimed');
  return {
    ...claimed.value.after,
    input: { kind: 'inline' as const, value: { ...input, repeat: 1, fail: false } },
  };
};

/** The worker's run of `prediction` on the echo model's server, with the run limit and execution end given. */
const runHere = async (
  prediction: Awaited<ReturnType<typeof claimedHere>>,
  options: { runSeconds: number; stopExecution: EffectDeps['stopExecution'] },
) => {
  const model = await processNamed('model:prognoz/echo');
  const callbacks = new CogCallbacks();
  await callbacks.listen(0);
  const definition = { ...echoModel, timeouts: { ...echoModel.timeouts, runSeconds: options.runSeconds } };
  try {
    return await runPrediction(
      {
        model: definition,
        store: store(),
        outputs: {
          put: () => Promise.reject(new Error('no output expected')),
          get: () => Promise.reject(new Error('no stored input expected')),
          putFile: () => Promise.reject(new Error('no files expected')),
        },
        modelServer: cogModelServer(model.url ?? '', callbacks, definition),
        inputs: folderRunInputs({
          dir: tmpdir(),
          model: definition,
          download: () => Promise.reject(new Error('no file inputs expected')),
          share: (folder) => callbacks.shareInputs(folder),
        }),
        clock: systemClock,
        checkMs: 1000,
        heartbeatMs: 2000,
        renewLease: () => Promise.resolve(),
        effects: {
          store: store(),
          catalog: testCatalog,
          notifier: sqsWebhookNotifier(await webhookQueueUrl(), localSqs()),
          endingTeller: sqsEndingTeller(() => undefined, localSqs()),
          stopExecution: options.stopExecution,
        },
        sleep: (ms, signal) => sleep(ms, undefined, { signal }).catch(() => undefined),
        log: () => undefined,
      },
      prediction,
    );
  } finally {
    await callbacks.close();
  }
};

describe('deadlines hold', () => {
  it("the worker's call to its model server times out at the model's run limit: the run is stopped, the prediction ends failed, billed for the time it ran", async () => {
    const token = await createOtherAccount({ balanceKopecks: 10_000 });
    const prediction = await claimedHere(token, { text: 'slow', sleep: 30 });
    const started = Date.now();
    const outcome = await runHere(prediction, { runSeconds: 1, stopExecution: () => Promise.resolve() });

    expect(outcome).toBe('ended');
    expect(Date.now() - started).toBeLessThan(10_000);
    const ended = await untilTerminal(prediction.id, 5000, { token });
    expect(ended).toMatchObject({ status: 'failed', error: ENDINGS.runTimeout(1) });
    expect(ended.runtime ?? 0).toBeGreaterThan(1);
    expect(ended.cost).toBeGreaterThan(0);
    // The model server was told to stop: it is free again at once, not 30 s later.
    for (let i = 0; i < 30 && (await modelHealth()) !== 'READY'; i++) await sleep(100);
    expect(await modelHealth()).toBe('READY');
  });
});

describe('the worker ends its execution before it writes the end', () => {
  it('with the execution ended, an end that sends no webhook owes nothing: it is written once', async () => {
    const token = await createOtherAccount({ balanceKopecks: 10_000 });
    const prediction = await claimedHere(token, { text: 'first the token', sleep: 0 });
    const ended: string[] = [];
    const stopExecution: EffectDeps['stopExecution'] = async (which) => {
      // The end is not written yet when the execution is ended.
      ended.push(`${which.status} while ${(await store().get(prediction.id))?.status}`);
    };

    expect(await runHere(prediction, { runSeconds: 10, stopExecution })).toBe('ended');

    expect(ended).toEqual(['succeeded while processing']);
    expect(await store().get(prediction.id)).toMatchObject({ status: 'succeeded', effects: [], sweepAtMs: null });
  });

  it('a token that fails leaves the end owing the execution, for whoever settles it next', async () => {
    const token = await createOtherAccount({ balanceKopecks: 10_000 });
    const prediction = await claimedHere(token, { text: 'the token fails', sleep: 0 });
    const stopExecution = () => Promise.reject(new Error('TaskTimedOut'));

    expect(await runHere(prediction, { runSeconds: 10, stopExecution })).toBe('ended');

    expect(await store().get(prediction.id)).toMatchObject({ status: 'succeeded', effects: ['stop'] });
    expect(await untilTerminal(prediction.id, 5000, { token })).toMatchObject({ output: { text: 'the token fails' } });
  });
});
