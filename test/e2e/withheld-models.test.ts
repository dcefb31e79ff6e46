import { describe, expect, it } from 'vitest';
import { call, processes, runtime } from '../support/api.ts';

/**
 * openai/whisper-large-v3-turbo needs its weights locally (the manifest's `local.requiresWeights`);
 * the e2e runtime has none (global setup), so it withholds the model: as if it were not there.
 */
const TURBO = 'openai/whisper-large-v3-turbo';

describe('a model whose weights the local runtime lacks', () => {
  it('is not listed, and its page is a 404', async () => {
    const { json } = await call<{ results: { id: string }[] }>('models');
    const ids = json.results.map((model) => model.id);
    expect(ids).toContain('openai/whisper-base');
    expect(ids).not.toContain(TURBO);
    expect((await call(TURBO)).status).toBe(404);
  });

  it('answers a create as for an unknown model, every way one is asked', async () => {
    const unknown = await call('acme/nothing', { method: 'POST', body: {} });
    for (const [route, body] of [
      [TURBO, { audio: 'https://example.com/a.wav' }],
      [`models/${TURBO}/predictions`, { input: { audio: 'https://example.com/a.wav' } }],
      ['predictions', { version: TURBO, input: { audio: 'https://example.com/a.wav' } }],
    ] as const) {
      const created = await call(route, { method: 'POST', body });
      expect(created.status, route).toBe(unknown.status);
      expect(created.json, route).toMatchObject({ error: { code: 'model_not_found' } });
    }
  });

  it('has no model server or worker, and npm start said how to fetch its weights', async () => {
    expect((await processes()).map((process) => process.name).filter((name) => name.includes(TURBO))).toEqual([]);
    const { lines } = (await (await fetch(`${runtime().origin}/_local/logs`)).json()) as { lines: string[] };
    expect(
      lines.some(
        (line) => line.startsWith(`${TURBO}: not offered`) && line.includes('npm run weights -- large-v3-turbo'),
      ),
    ).toBe(true);
  });
});
