import { describe, expect, it } from 'vitest';
import { createPrediction, getPrediction, pollUntil, untilTerminal } from '../support/api.ts';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('an asynchronous prediction', () => {
  it('is created starting, with the input echoed with defaults, and polls to succeeded', async () => {
    const created = await createPrediction({ text: 'добрый день' });

    expect(created.status).toBe(201);
    expect(created.headers.get('content-type')).toBe('application/json');
    expect(created.json).toMatchObject({
      status: 'starting',
      output: null,
      runtime: null,
      source: 'api',
      input: { text: 'добрый день', repeat: 1, sleep: 0, fail: false },
    });
    expect(created.json.id).toMatch(UUID);
    expect(created.json.created_at).toMatch(TIMESTAMP);
    expect(created.json).not.toHaveProperty('cost');
    expect(created.json).not.toHaveProperty('webhook');
    expect(created.headers.get('location')).toBe(`/api/v1/predictions/${created.json.id}`);

    const done = await untilTerminal(created.json.id);
    expect(done.status).toBe('succeeded');
    expect(done.output).toEqual({ text: 'добрый день', file: null });
    expect(done.runtime).toEqual(expect.any(Number));
    expect(done.runtime).toBeGreaterThanOrEqual(0);
    // prognoz/echo costs 0.01 ₽ a second, rounded up to the kopeck.
    expect(done.cost).toBe(Math.ceil(done.runtime ?? 0) / 100);
    expect(done.created_at).toBe(created.json.created_at);
  });

  it('passes through queued and processing on its way', async () => {
    const created = await createPrediction({ sleep: 2 });
    const seen = new Set<string>([created.json.status]);
    await pollUntil(created.json.id, (p) => {
      seen.add(p.status);
      return p.status === 'succeeded';
    });
    expect(seen).toContain('processing');
    expect([...seen].every((s) => ['starting', 'queued', 'processing', 'succeeded'].includes(s))).toBe(true);
  });
});

describe('a synchronous prediction (Prefer: SYNC)', () => {
  it('returns the output in the same response', async () => {
    const response = await createPrediction({ text: 'sync' }, { headers: { prefer: 'SYNC' } });

    expect(response.status).toBe(201);
    expect(response.json).toMatchObject({ status: 'succeeded', output: { text: 'sync' } });
    expect(response.json.runtime).toEqual(expect.any(Number));
    expect(response.json.cost).toEqual(expect.any(Number));
  });

  it('accepts `wait` and lower case as synonyms', async () => {
    for (const prefer of ['sync', 'wait', 'wait=10']) {
      const response = await createPrediction({ text: prefer }, { headers: { prefer } });
      expect(response.json).toMatchObject({ status: 'succeeded', output: { text: prefer } });
    }
  });

  it('with Request-Timeout: 1 returns the unfinished prediction after about 1 s, which later succeeds', async () => {
    const response = await createPrediction({ sleep: 5 }, { headers: { prefer: 'SYNC', 'request-timeout': '1' } });

    expect(response.status).toBe(201);
    expect(['starting', 'queued', 'processing']).toContain(response.json.status);
    expect(response.json.output).toBeNull();
    expect(response.ms).toBeGreaterThanOrEqual(900);
    expect(response.ms).toBeLessThan(4000);

    const done = await untilTerminal(response.json.id, 20_000);
    expect(done).toMatchObject({ status: 'succeeded', output: { text: 'hello' } });
    expect(done.runtime).toBeGreaterThanOrEqual(5);
  });

  it('rejects a Request-Timeout that is not 1–60 seconds', async () => {
    for (const timeout of ['0', '61', 'soon']) {
      const response = await createPrediction({}, { headers: { prefer: 'SYNC', 'request-timeout': timeout } });
      expect(response.status).toBe(400);
      expect(response.json).toMatchObject({ error: { code: 'invalid_header' } });
    }
  });
});

describe('reading a prediction', () => {
  it('gives 404 for an id that is not UUID-shaped or does not exist', async () => {
    for (const id of ['nope', '00000000-0000-4000-8000-00000000dead']) {
      const response = await getPrediction(id);
      expect(response.status).toBe(404);
      expect(response.json).toMatchObject({ error: { code: 'prediction_not_found' } });
    }
  });
});
