import { describe, expect, it } from 'vitest';
import { ENDINGS, OUTPUT_LIMITS } from '../../shared/domain/endings.ts';
import { fileReference } from '../../shared/domain/output-files.ts';
import { outputFileKey } from '../../shared/ports/output-store.ts';
import { phaseLimitsOf } from '../../shared/catalog/definition.ts';
import { cancelPredictionUseCase } from '../../shared/use-cases/cancel-prediction.ts';
import { claimJob } from '../../shared/use-cases/claim-job.ts';
import type { EndingExecution } from '../../shared/use-cases/end-prediction.ts';
import {
  HAND_BACK_WAIT_MS,
  runPrediction,
  type RunDeps,
  type RunOutcome,
} from '../../shared/use-cases/run-prediction.ts';
import { createEchoPrediction, echo, type EchoPredictionOptions } from '../support/in-memory/echo-prediction.ts';
import { echoScript, inMemoryModelServer, type RunScript } from '../support/in-memory/model-server.ts';
import { inMemoryRunInputs } from '../support/in-memory/run-inputs.ts';
import { inMemoryService } from '../support/in-memory/service.ts';

const S = 1000;
const limits = phaseLimitsOf(echo);
const HEARTBEAT_MS = echo.timeouts.heartbeatSeconds * S;
const CHECK_MS = 1000;

/** A turn of the event loop, a few times: what has begun runs as far as it can without the clock. */
const settle = async () => {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
};

interface RunHere {
  readonly input?: Record<string, unknown>;
  readonly script?: (input: Readonly<Record<string, unknown>>) => RunScript;
  readonly files?: Readonly<Record<string, string | Error>>;
  readonly prediction?: EchoPredictionOptions;
}

/**
 * A fresh in-memory service with one echo prediction claimed by this worker, and its run on the
 * twins of the model server and the run inputs, on the service's fake clock: `until` moves the
 * clock in steps until the run is over.
 */
const runHere = async (options: RunHere = {}) => {
  const service = inMemoryService();
  const created = await createEchoPrediction(service, options.prediction);
  const stopped: EndingExecution[] = [];
  const logged: string[] = [];
  const effects = {
    store: service.store,
    catalog: service.catalog,
    notifier: service.notifier,
    endingTeller: service.endingTeller,
    stopExecution: (prediction: EndingExecution) => {
      stopped.push(prediction);
      return Promise.resolve();
    },
  };
  const taken = await claimJob(
    {
      store: service.store,
      catalog: service.catalog,
      clock: service.clock,
      ids: () => 'claim-1',
      limits,
      effects,
      log: () => undefined,
      countLost: () => undefined,
    },
    created.id,
  );
  if (taken.kind !== 'run') throw new Error(`not claimed: ${JSON.stringify(taken)}`);
  const prediction = {
    ...taken.prediction,
    input: { kind: 'inline' as const, value: options.input ?? { text: 'hi' } },
  };
  const sleep = (ms: number, signal?: AbortSignal) => service.clock.sleep(ms, signal);
  const modelServer = inMemoryModelServer({
    now: () => service.clock.now(),
    sleep,
    ...(options.script ? { script: options.script } : {}),
  });
  const inputs = inMemoryRunInputs(echo, options.files ?? {});
  let leases = 0;
  let answered = 0;
  const handBack = new AbortController();
  const deps: RunDeps = {
    model: echo,
    store: service.store,
    outputs: service.outputs,
    modelServer,
    inputs,
    clock: service.clock,
    checkMs: CHECK_MS,
    heartbeatMs: HEARTBEAT_MS,
    renewLease: () => {
      leases++;
      return Promise.resolve();
    },
    effects,
    sleep,
    log: (message) => logged.push(message),
    handBack: handBack.signal,
    runEnded: () => answered++,
  };
  let outcome: RunOutcome | Error | undefined;
  const running = runPrediction(deps, prediction).then(
    (value) => {
      outcome = value;
    },
    (error: unknown) => {
      outcome = error instanceof Error ? error : new Error(String(error));
    },
  );
  /** Moves the clock `ms` on, in steps of `step`, letting the run go as far as it can after each. */
  const elapse = async (ms: number, step = 100) => {
    for (let moved = 0; moved < ms; moved += step) {
      await settle();
      service.clock.advance(step);
    }
    await settle();
  };
  /** Moves the clock on until the run is over (at most `maxMs`), and answers its outcome. */
  const until = async (maxMs = 120 * S): Promise<RunOutcome> => {
    for (let moved = 0; outcome === undefined && moved < maxMs; moved += 100) await elapse(100);
    await running;
    if (outcome === undefined) throw new Error('the run did not end');
    if (outcome instanceof Error) throw outcome;
    return outcome;
  };
  const stored = async () => {
    const found = await service.store.get(created.id);
    if (!found) throw new Error('the prediction is gone');
    return found;
  };
  return {
    service,
    id: created.id,
    created,
    modelServer,
    inputs,
    stopped,
    logged,
    handBack,
    elapse,
    until,
    stored,
    leases: () => leases,
    answered: () => answered,
  };
};

/** A run that sleeps `seconds`, then answers as the echo model does. */
const sleeping = (seconds: number, text = 'hi') => ({ text, sleep: seconds });

describe("the worker's run of a prediction", () => {
  describe('its inputs', () => {
    it('fetches each file input, gives the model where to read it, and lets it go once the run is over', async () => {
      const seen: unknown[] = [];
      const run = await runHere({
        input: { text: 'with a file', file: 'https://files.example/a.wav' },
        files: { 'https://files.example/a.wav': 'RIFF' },
        script: (input) => {
          seen.push(input.file, run.inputs.read(String(input.file)));
          return echoScript(input);
        },
      });
      expect(await run.until()).toBe('ended');
      expect(seen).toEqual([`memory://${run.id}/file`, 'RIFF']);
      expect(run.inputs.released).toEqual([run.id]);
      expect(await run.stored()).toMatchObject({
        status: 'succeeded',
        output: { kind: 'inline', value: { text: 'with a file' } },
      });
    });

    it('ends the prediction failed without running the model when a file cannot be fetched, and charges nothing', async () => {
      const run = await runHere({ input: { text: 'x', file: 'https://files.example/missing.wav' } });
      expect(await run.until()).toBe('ended');
      expect(run.modelServer.given.size).toBe(0);
      const ended = await run.stored();
      expect(ended).toMatchObject({ status: 'failed', runtimeMs: null });
      expect(ended.status === 'failed' && ended.error).toMatch(/^the input file could not be fetched: /);
      expect(run.inputs.released).toEqual([run.id]);
      expect(run.stopped).toEqual([expect.objectContaining({ id: run.id, status: 'failed' })]);
    });
  });

  it('renews its lease every heartbeat while the model runs, and no more once it is over', async () => {
    const run = await runHere({ input: sleeping(7.5) });
    expect(await run.until()).toBe('ended');
    expect(run.leases()).toBe(Math.floor(7.5 / (HEARTBEAT_MS / S)));
    await run.elapse(3 * HEARTBEAT_MS);
    expect(run.leases()).toBe(Math.floor(7.5 / (HEARTBEAT_MS / S)));
  });

  it("records the run's progress and logs as it goes, and sends the run webhooks asked for", async () => {
    const run = await runHere({
      input: sleeping(4),
      prediction: { webhookEvents: ['start', 'logs', 'completed'] },
    });
    await run.elapse(2.5 * S);
    expect(await run.stored()).toMatchObject({ status: 'processing', progress: 0.5, logs: 'sleeping 4 s\n' });
    expect(run.service.notifier.queued.map((message) => ('event' in message ? message.event : message.status))).toEqual(
      ['start', 'logs'],
    );
    expect(await run.until()).toBe('ended');
    expect(await run.stored()).toMatchObject({ status: 'succeeded', logs: 'sleeping 4 s\n' });
  });

  it('stops the model when the prediction is canceled mid-run, and leaves its end to the cancel', async () => {
    const run = await runHere({ input: sleeping(30) });
    await run.elapse(2 * S);
    const canceled = await cancelPredictionUseCase(run.service, run.id);
    expect(canceled.ok).toBe(true);
    expect(await run.until()).toBe('stopped');
    expect(run.modelServer.canceled).toEqual([run.id]);
    expect(run.stopped).toEqual([]);
    expect(await run.stored()).toMatchObject({ status: 'canceled' });
  });

  it("stops the model at the prediction's deadline (Cancel-After) and ends it canceled, saying why", async () => {
    const run = await runHere({ input: sleeping(30), prediction: { cancelAfterSeconds: 3 } });
    expect(await run.until()).toBe('ended');
    expect(run.modelServer.canceled).toEqual([run.id]);
    const ended = await run.stored();
    expect(ended).toMatchObject({
      status: 'canceled',
      error: expect.stringMatching(/deadline \(Cancel-After\) passed/) as unknown,
    });
    expect(run.stopped).toEqual([expect.objectContaining({ id: run.id, status: 'canceled' })]);
  });

  it("fails the run at the model's run limit, stopping the model, billed for the time it ran", async () => {
    const run = await runHere({ input: sleeping(limits.runSeconds + 60) });
    expect(await run.until((limits.runSeconds + 30) * S)).toBe('ended');
    expect(run.modelServer.canceled).toEqual([run.id]);
    const ended = await run.stored();
    expect(ended).toMatchObject({ status: 'failed', error: ENDINGS.runTimeout(limits.runSeconds) });
    expect(ended.status === 'failed' && ended.runtimeMs).toBeGreaterThan(limits.runSeconds * S);
  });

  it("ends a model's failure failed, in the model's words", async () => {
    const run = await runHere({ input: { text: 'x', fail: true } });
    expect(await run.until()).toBe('ended');
    expect(await run.stored()).toMatchObject({
      status: 'failed',
      error: 'prognoz/echo failed on purpose (input fail: true)',
    });
  });

  describe('at the drain deadline', () => {
    it('stops the run and hands it back to the queue, its attempt not counted', async () => {
      const run = await runHere({ input: sleeping(30) });
      await run.elapse(2 * S);
      run.handBack.abort();
      expect(await run.until()).toBe('handedBack');
      expect(run.modelServer.canceled).toEqual([run.id]);
      expect(await run.stored()).toMatchObject({ status: 'queued', attempts: 0 });
      expect(run.stopped).toEqual([]);
    });

    it('gives the run back after a while even when the model does not stop', async () => {
      const run = await runHere({ input: sleeping(30) });
      await run.elapse(2 * S);
      run.modelServer.cancel = () => Promise.resolve(); // a model that does not hear the cancel
      run.handBack.abort();
      await run.elapse(HAND_BACK_WAIT_MS - 500);
      expect(await run.stored()).toMatchObject({ status: 'processing' });
      expect(await run.until()).toBe('handedBack');
      expect(await run.stored()).toMatchObject({ status: 'queued', attempts: 0 });
    });
  });

  describe('its output', () => {
    it('is kept inline when small', async () => {
      const run = await runHere({ input: { text: 'small' } });
      expect(await run.until()).toBe('ended');
      expect(run.answered()).toBe(1);
      expect(await run.stored()).toMatchObject({
        status: 'succeeded',
        output: { kind: 'inline', value: { text: 'small' } },
      });
    });

    it('is kept in the outputs bucket, by reference, when large', async () => {
      const text = 'x'.repeat(OUTPUT_LIMITS.inlineBytes + 1);
      const run = await runHere({ input: { text } });
      expect(await run.until()).toBe('ended');
      const ended = await run.stored();
      expect(ended).toMatchObject({ status: 'succeeded', output: { kind: 'object' } });
      const output = ended.status === 'succeeded' ? ended.output : null;
      if (output?.kind !== 'object') throw new Error('not stored by reference');
      expect(JSON.parse(await run.service.outputs.get(output.key))).toMatchObject({ text });
    });

    it('keeps the files the model returns in the outputs bucket and refers to each', async () => {
      const run = await runHere({
        input: { text: `data:text/plain;base64,${Buffer.from('a file').toString('base64')}` },
      });
      expect(await run.until()).toBe('ended');
      const key = outputFileKey(run.id, 'claim-1', 'output-0.txt');
      expect(await run.stored()).toMatchObject({
        status: 'succeeded',
        output: { kind: 'inline', value: { text: fileReference(key) } },
      });
      const file = await run.service.outputs.openFile(key);
      expect(file?.contentType).toMatch(/^text\/plain/);
    });

    it('fails the prediction when it is not what the model declares', async () => {
      const run = await runHere({ script: () => ({ afterMs: 0, end: { status: 'succeeded', output: 42 } }) });
      expect(await run.until()).toBe('ended');
      const ended = await run.stored();
      expect(ended.status === 'failed' && ended.error).toMatch(
        /^the model returned output that does not match its schema/,
      );
    });
  });

  it('puts the prediction back in the queue when its model server goes away mid-run', async () => {
    const run = await runHere({ input: sleeping(30) });
    await run.elapse(2 * S);
    run.modelServer.lose();
    expect(await run.until()).toBe('requeued');
    expect(await run.stored()).toMatchObject({ status: 'queued', attempts: 1 });
    expect(run.stopped).toEqual([]);
  });
});
