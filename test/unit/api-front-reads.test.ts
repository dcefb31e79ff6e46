import type { Server } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startApiFront } from '../../local/api-front.ts';
import { closeServer } from '../../local/close-server.ts';
import type { LocalFunction } from '../../local/lambda-host.ts';
import { heldRequests } from '../fixtures/lambda/held.ts';

/**
 * The local API front lets reads take turns (local/read-turns.ts): at most `readsAtOnce` reads reach
 * their handlers at once, in arrival order, while writes and streams go straight through. Every
 * function here is test/fixtures/lambda/held.ts, which holds each request until it is released.
 */
const held = heldRequests();
const fixture: LocalFunction = {
  name: 'Held',
  entry: 'test/fixtures/lambda/held.ts',
  timeoutSeconds: 30,
  kind: 'unconfigured',
  environment: {},
};

let front: { url: string; server: Server };
beforeAll(async () => {
  front = await startApiFront({
    port: 0,
    functionAt: () => fixture,
    authorizerCaching: { ttlSeconds: 0, identityHeaders: ['authorization'] },
    localEndpoints: {},
    readsAtOnce: 1,
  });
});
afterAll(async () => {
  for (const release of held.release.values()) release();
  await closeServer(front.server);
});
beforeEach(() => {
  held.arrived.length = 0;
});

const send = (method: string, path: string, signal?: AbortSignal) =>
  fetch(`${front.url}${path}`, {
    method,
    headers: { authorization: 'Bearer test', 'content-type': 'application/json' },
    ...(method === 'POST' ? { body: '{}' } : {}),
    ...(signal ? { signal } : {}),
  });
const readsWaiting = async () =>
  ((await (await fetch(`${front.url}/_local/requests`)).json()) as { reads_waiting: number }).reads_waiting;
const arrives = (what: string) => vi.waitFor(() => expect(held.arrived).toContain(what), { timeout: 5000 });
const release = async (path: string) => {
  await vi.waitFor(() => expect(held.release.has(path)).toBe(true));
  held.release.get(path)?.();
  held.release.delete(path);
};

describe('reads take turns at the local API front', () => {
  it('a read waits for the reads before it, while a write and a stream go straight to their handlers', async () => {
    const first = send('GET', '/api/v1/predictions/first');
    await arrives('GET /api/v1/predictions/first');
    const second = send('GET', '/api/v1/predictions/second');
    await vi.waitFor(async () => expect(await readsWaiting()).toBe(1));

    const write = send('POST', '/api/v1/predictions');
    await arrives('POST /api/v1/predictions');
    const stream = send('GET', '/api/v1/predictions/first/stream');
    await arrives('GET /api/v1/predictions/first/stream');
    expect(held.arrived).not.toContain('GET /api/v1/predictions/second');

    await release('/api/v1/predictions/first');
    expect((await first).status).toBe(200);
    await arrives('GET /api/v1/predictions/second');
    await release('/api/v1/predictions/second');
    expect(await (await second).json()).toEqual({ path: '/api/v1/predictions/second' });
    await release('/api/v1/predictions');
    await release('/api/v1/predictions/first/stream');
    expect((await write).status).toBe(200);
    expect((await stream).status).toBe(200);
    expect(await readsWaiting()).toBe(0);
  });

  it('a read whose caller left while it waited never reaches its handler', async () => {
    const first = send('GET', '/api/v1/predictions/first');
    await arrives('GET /api/v1/predictions/first');
    const leaving = new AbortController();
    const left = send('GET', '/api/v1/predictions/left', leaving.signal).catch((error: unknown) => error);
    await vi.waitFor(async () => expect(await readsWaiting()).toBe(1));
    leaving.abort();
    await left;
    const after = send('GET', '/api/v1/predictions/after');
    await vi.waitFor(async () => expect(await readsWaiting()).toBe(2));

    await release('/api/v1/predictions/first');
    await arrives('GET /api/v1/predictions/after');
    await release('/api/v1/predictions/after');
    expect((await first).status).toBe(200);
    expect((await after).status).toBe(200);
    expect(held.arrived).toEqual(['GET /api/v1/predictions/first', 'GET /api/v1/predictions/after']);
  });
});
