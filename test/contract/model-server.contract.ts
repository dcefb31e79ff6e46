import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { ModelBusy, ModelTimeout, ModelUnavailable, type ModelServer } from '../../shared/ports/model-server.ts';

/** A model server of the echo model (models/echo) with one slot, and how to make it go away. */
export interface EchoServer {
  readonly server: ModelServer;
  /** The server goes away (its process killed): the runs going on are lost. */
  readonly lose: () => Promise<void>;
  readonly close: () => Promise<void>;
}

const LONG = 60_000;

/** Waits until the server has a free slot again (coglet frees one a moment after a run's end). */
export const untilReady = async (server: ModelServer): Promise<void> => {
  for (let i = 0; i < 100; i++) {
    if ((await server.health().catch(() => null))?.status === 'READY') return;
    await sleep(50);
  }
  throw new Error('the model server did not become READY');
};

/** Waits until the run of `id` shows what `seen` looks for. */
const untilSeen = async (server: ModelServer, id: string, seen: (logs: string) => boolean): Promise<void> => {
  for (let i = 0; i < 200; i++) {
    const state = await server.runState(id);
    if (state !== null && seen(state.logs)) return;
    await sleep(25);
  }
  throw new Error(`the run ${id} never showed what was looked for`);
};

let runs = 0;
const runId = () => `contract-run-${process.pid}-${++runs}`;

/** What every ModelServer does, whether coglet over HTTP or the twin in memory. */
export const describeModelServerContract = (name: string, make: () => Promise<EchoServer>) =>
  describe(`${name}: the model server`, () => {
    let echo: EchoServer | undefined;
    const server = async () => {
      echo ??= await make();
      await untilReady(echo.server);
      return echo.server;
    };
    beforeEach(async () => {
      await server();
    }, LONG);
    afterAll(async () => {
      await echo?.close();
    });

    it('is READY with a free slot, and says when it began its setup', async () => {
      const health = await (await server()).health();
      expect(health).toMatchObject({ status: 'READY', setupError: null });
      expect(typeof health.startedAt).toBe('string');
    });

    it("runs a prediction and answers its end: the model's output, its logs and its measure of the run", async () => {
      const ended = await (await server()).predict(runId(), { text: 'привет', repeat: 2, sleep: 0, fail: false }, LONG);
      expect(ended).toMatchObject({ status: 'succeeded', output: { text: 'приветпривет' } });
      expect(ended.logs).toContain('sleeping 0 s');
      expect(ended.metrics?.predict_time).toEqual(expect.any(Number));
      expect(ended.streamed ?? null).toBeNull();
    });

    it("answers a model's failure in the model's own words", async () => {
      const ended = await (await server()).predict(runId(), { text: 'x', sleep: 0, fail: true }, LONG);
      expect(ended).toMatchObject({ status: 'failed', error: 'prognoz/echo failed on purpose (input fail: true)' });
    });

    it('shows a run while it goes on, and knows nothing of one it does not run', async () => {
      const models = await server();
      const id = runId();
      expect(await models.runState(id)).toBeNull();
      const running = models.predict(id, { text: 'slow', sleep: 0.6 }, LONG);
      await untilSeen(models, id, (logs) => logs.includes('sleeping 0.6 s'));
      const state = await models.runState(id);
      expect(state?.streamed).toEqual([]);
      const progress = state?.progress ?? null;
      expect(progress === null || (progress >= 0 && progress <= 1)).toBe(true);
      expect(await running).toMatchObject({ status: 'succeeded', output: { text: 'slow' } });
    });

    it('stops a run that is canceled: it ends canceled, and its slot is free again', async () => {
      const models = await server();
      const id = runId();
      const running = models.predict(id, { text: 'stop me', sleep: 30 }, LONG);
      await untilSeen(models, id, (logs) => logs.includes('sleeping'));
      await models.cancel(id);
      expect(await running).toMatchObject({ status: 'canceled' });
      await untilReady(models);
      await expect(models.cancel(runId())).resolves.toBeUndefined();
    });

    it('gives up on a run that has not ended in the time it was given', async () => {
      const models = await server();
      const id = runId();
      await expect(models.predict(id, { text: 'late', sleep: 30 }, 300)).rejects.toBeInstanceOf(ModelTimeout);
      await models.cancel(id);
    });

    it('refuses a run when its only slot is taken', async () => {
      const models = await server();
      const first = runId();
      const running = models.predict(first, { text: 'first', sleep: 30 }, LONG);
      await untilSeen(models, first, (logs) => logs.includes('sleeping'));
      await expect(models.predict(runId(), { text: 'second' }, LONG)).rejects.toBeInstanceOf(ModelBusy);
      await models.cancel(first);
      expect(await running).toMatchObject({ status: 'canceled' });
    });

    it('loses the run going on when it goes away', async () => {
      const models = await server();
      const id = runId();
      const running = models.predict(id, { text: 'lost', sleep: 30 }, LONG);
      await untilSeen(models, id, (logs) => logs.includes('sleeping'));
      await echo?.lose();
      await expect(running).rejects.toBeInstanceOf(ModelUnavailable);
    });
  });
