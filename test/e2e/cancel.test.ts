import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { call, cancelPrediction, createPrediction, modelLogOf, pollUntil, untilTerminal } from '../support/api.ts';

describe('cancel', () => {
  it('during sleep: 30 returns canceled within 2 s and the model server stops working on it', async () => {
    const created = await createPrediction({ sleep: 30 });
    await pollUntil(created.json.id, (p) => p.status === 'processing');
    await sleep(500);

    const canceled = await cancelPrediction(created.json.id);

    expect(canceled.status).toBe(200);
    expect(canceled.json.status).toBe('canceled');
    expect(canceled.ms).toBeLessThan(2000);
    // Billed only for the time used.
    expect(canceled.json.runtime).toBeGreaterThan(0);
    expect(canceled.json.runtime).toBeLessThan(10);
    expect(canceled.json.cost).toEqual(expect.any(Number));

    // The model server's own log: coglet canceled the run, long before its 30 s sleep.
    const deadline = Date.now() + 5000;
    const stopped = async () =>
      (await modelLogOf(created.json.id)).some((line) => line.includes('Prediction cancelled'));
    while (!(await stopped()) && Date.now() < deadline) await sleep(100);
    expect(await stopped()).toBe(true);

    const again = await cancelPrediction(created.json.id);
    expect(again.status).toBe(200);
    expect(again.json).toEqual(canceled.json);
  });

  it('of a prediction still waiting to start cancels it, and it never runs', async () => {
    // The model runs one prediction at a time: the second waits in the queue behind the first.
    const blocker = await createPrediction({ sleep: 3 });
    const waiting = await createPrediction({ text: 'never' });
    const canceled = await cancelPrediction(waiting.json.id);

    expect(canceled.json.status).toBe('canceled');
    expect(canceled.json.runtime).toBeNull();
    expect(canceled.json.cost).toBe(0);
    await untilTerminal(blocker.json.id, 20_000);
    await sleep(1000);
    expect(await modelLogOf(waiting.json.id)).toEqual([]);
    expect((await untilTerminal(waiting.json.id)).status).toBe('canceled');
  });

  it('of a succeeded prediction is 409 with the prediction unchanged', async () => {
    const done = await createPrediction({ text: 'done' }, { headers: { prefer: 'wait' } });
    expect(done.json.status).toBe('succeeded');

    const response = await cancelPrediction(done.json.id);

    expect(response.status).toBe(409);
    expect(response.json).toMatchObject({
      error: { code: 'prediction_finished' },
      prediction: { id: done.json.id, status: 'succeeded', output: { text: 'done' } },
    });
  });

  it('of a failed prediction is 409 too', async () => {
    const failed = await createPrediction({ fail: true }, { headers: { prefer: 'wait' } });
    expect(failed.json.status).toBe('failed');
    expect((await cancelPrediction(failed.json.id)).status).toBe(409);
  });

  it('with GET is 405 naming POST', async () => {
    const created = await createPrediction({});
    const response = await call(`predictions/${created.json.id}/cancel`, { method: 'GET' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });
});
