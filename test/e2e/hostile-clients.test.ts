import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { EDGE_LIMITS } from '../../shared/api/edge-limits.ts';
import type { PredictionView } from '../../shared/api/prediction-view.ts';
import { accountOf, call, createOtherAccount, createPrediction, untilTerminal } from '../support/api.ts';
import {
  auth,
  expectErrorShape,
  expectNothingLeftBehind,
  expectServiceAnswers,
  inFlight,
  jsonHead,
  openHostileAccount,
  origin,
  predictionsOfAccount,
  untilIdle,
} from '../support/hostile-client.ts';
import { openRaw, requestHead, type RawConnection } from '../support/raw-http.ts';

/**
 * Clients that misbehave, over real sockets against the running service: they leave at every
 * phase of every kind of request, send half a body or dribble it, and hold connections idle.
 * After each, the service answers everyone else, what they started ends as usual and is paid for
 * exactly, and no handler goes on working for a caller who is gone.
 */

let token = '';
beforeAll(async () => {
  token = await openHostileAccount();
});

describe('a client that leaves', () => {
  it('a synchronous create whose caller leaves while it waits: the wait stops at once, the prediction goes on and ends', async () => {
    const body = JSON.stringify({ text: 'left', sleep: 2 });
    const client = await openRaw(origin());
    await client.write(jsonHead('/api/v1/prognoz/echo', body, [['prefer', 'wait']]) + body);
    await sleep(500);
    expect(await inFlight()).toBe(1);

    client.abandon();

    await untilIdle(1500);
    const [left] = await predictionsOfAccount();
    expect(left?.input).toMatchObject({ text: 'left' });
    expect(left?.status).not.toBe('succeeded');
    expect((await untilTerminal(left?.id ?? '', 30_000, { token })).status).toBe('succeeded');
    await expectServiceAnswers();
  });

  it('an event stream whose caller leaves mid-stream stops reading for it; the prediction ends as usual', async () => {
    const created = await call<PredictionView>('prognoz/stream', {
      token,
      body: { text: 'one two three four five six', sleep: 3 },
    });
    const stream = new URL(created.json.urls?.stream ?? '');
    const client = await openRaw(origin());
    await client.write(requestHead('GET', `${stream.pathname}${stream.search}`, [['accept', 'text/event-stream']]));
    await client.untilBytes(1);
    expect(await inFlight()).toBe(1);

    client.abandon();

    await untilIdle(1500);
    expect((await call<PredictionView>(`predictions/${created.json.id}`, { token })).json.status).not.toBe('succeeded');
    expect((await untilTerminal(created.json.id, 30_000, { token })).status).toBe('succeeded');
  });

  it('at every phase of every kind of request, it ends that request only', async () => {
    const existing = await createPrediction({ text: 'seen' }, { token, headers: { prefer: 'wait' } });
    const stream = new URL(existing.json.urls?.stream ?? '');
    const upload = Buffer.concat([
      Buffer.from('--b\r\ncontent-disposition: form-data; name="content"; filename="a.bin"\r\n'),
      Buffer.from('content-type: application/octet-stream\r\n\r\n'),
      Buffer.alloc(200_000, 7),
      Buffer.from('\r\n--b--\r\n'),
    ]);
    const create = JSON.stringify({ text: 'phase', sleep: 0.5 });
    const kinds: { name: string; head: string; body: Buffer }[] = [
      {
        name: 'sync create',
        head: jsonHead('/api/v1/prognoz/echo', create, [['prefer', 'wait']]),
        body: Buffer.from(create),
      },
      { name: 'create', head: jsonHead('/api/v1/prognoz/echo', create), body: Buffer.from(create) },
      {
        name: 'upload',
        head: requestHead('POST', '/api/v1/files', [
          auth(),
          ['content-type', 'multipart/form-data; boundary=b'],
          ['content-length', String(upload.length)],
        ]),
        body: upload,
      },
      {
        name: 'get',
        head: requestHead('GET', `/api/v1/predictions/${existing.json.id}`, [auth()]),
        body: Buffer.alloc(0),
      },
      { name: 'stream', head: requestHead('GET', `${stream.pathname}${stream.search}`, []), body: Buffer.alloc(0) },
      { name: 'large answer', head: requestHead('GET', '/api/v1/openapi.json', []), body: Buffer.alloc(0) },
    ];
    const phases: { name: string; act: (client: RawConnection, head: string, body: Buffer) => Promise<void> }[] = [
      { name: 'mid-headers', act: (client, head) => client.write(head.slice(0, head.length >> 1)) },
      {
        name: 'mid-body',
        act: (client, head, body) =>
          client.write(Buffer.concat([Buffer.from(head), body.subarray(0, body.length >> 1)])),
      },
      {
        name: 'before the answer',
        act: (client, head, body) => client.write(Buffer.concat([Buffer.from(head), body])),
      },
      {
        name: 'mid-answer',
        act: async (client, head, body) => {
          await client.write(Buffer.concat([Buffer.from(head), body]));
          await client.untilBytes(1, 20_000);
        },
      },
    ];
    const before = (await predictionsOfAccount()).length;

    for (const kind of kinds) {
      for (const phase of phases) {
        if (phase.name === 'mid-body' && kind.body.length === 0) continue;
        const client = await openRaw(origin());
        await phase.act(client, kind.head, kind.body);
        client.abandon();
        await expectServiceAnswers();
      }
    }

    await untilIdle(3000);
    // Every create that got through runs to its end, as if its caller had stayed.
    const made = (await predictionsOfAccount()).slice(0, -before || undefined);
    for (const prediction of made)
      expect((await untilTerminal(prediction.id, 60_000, { token })).status).toBe('succeeded');
  });

  it('a burst of abandoned synchronous creates: every prediction ends normally, nothing stays held, balances match costs', async () => {
    const account = await createOtherAccount({ balanceKopecks: 10_000, ratePerSecond: 1000 });
    const body = JSON.stringify({ text: 'burst', sleep: 0.3 });
    const head = requestHead('POST', '/api/v1/prognoz/echo', [
      ['authorization', `Bearer ${account}`],
      ['content-type', 'application/json'],
      ['content-length', String(body.length)],
      ['prefer', 'wait'],
    ]);
    const clients = await Promise.all(Array.from({ length: 20 }, () => openRaw(origin())));
    await Promise.all(clients.map((client) => client.write(head + body)));
    await sleep(300);

    for (const client of clients) client.abandon();

    await untilIdle(2000);
    const made = (await call<{ results: PredictionView[] }>('predictions', { token: account })).json.results;
    expect(made).toHaveLength(20);
    const ended = await Promise.all(made.map((p) => untilTerminal(p.id, 90_000, { token: account })));
    expect(ended.map((p) => p.status)).toEqual(Array.from({ length: 20 }, () => 'succeeded'));
    const charged = ended.reduce((sum, p) => sum + Math.round((p.cost ?? 0) * 100), 0);
    const after = await accountOf(account);
    expect(after.held).toBe(0);
    expect(Math.round(after.balance * 100)).toBe(10_000 - charged);
    expect(Math.round(after.spent_this_month * 100)).toBe(charged);
  }, 120_000);
});

describe('a client that is slow', () => {
  it('headers or a body dribbled below the pace, or a connection left silent, are cut off in the documented time; a slow but steady upload is not', async () => {
    const body = JSON.stringify({ text: 'x'.repeat(2000) });
    const steady = Buffer.concat([
      Buffer.from('--b\r\ncontent-disposition: form-data; name="content"; filename="slow.bin"\r\n\r\n'),
      Buffer.alloc(48 * 1024, 1),
      Buffer.from('\r\n--b--\r\n'),
    ]);
    const [headers, dribbled, paused, silent, sane] = await Promise.all(
      Array.from({ length: 5 }, () => openRaw(origin())),
    );
    if (!headers || !dribbled || !paused || !silent || !sane) throw new Error('no connection');

    void headers.dribble(jsonHead('/api/v1/prognoz/echo', body), 1, 250);
    void dribbled.write(jsonHead('/api/v1/prognoz/echo', body)).then(() => dribbled.dribble(body, 1, 250));
    void paused.write(jsonHead('/api/v1/prognoz/echo', body) + body.slice(0, 100));
    // 16 KiB/s, twice the least pace: it takes 3 s and is answered.
    void sane
      .write(
        requestHead('POST', '/api/v1/files', [
          auth(),
          ['content-type', 'multipart/form-data; boundary=b'],
          ['content-length', String(steady.length)],
        ]),
      )
      .then(() => sane.dribble(steady, 4096, 250));
    const closedAfter = await Promise.all([headers.closed, dribbled.closed, paused.closed, silent.closed]);

    const headersLimitMs = EDGE_LIMITS.headersSeconds * 1000;
    const bodyLimitMs = Math.max(EDGE_LIMITS.bodyIdleSeconds, EDGE_LIMITS.bodyGraceSeconds) * 1000;
    // Node checks its header timeout every second; the body's pace is checked four times a second.
    for (const [ms, limitMs] of [
      [closedAfter[0], headersLimitMs],
      [closedAfter[1], bodyLimitMs],
      [closedAfter[2], bodyLimitMs],
      [closedAfter[3], headersLimitMs],
    ] as const) {
      expect(ms).toBeGreaterThanOrEqual(limitMs - 1000);
      expect(ms).toBeLessThan(limitMs + 4000);
    }
    for (const cut of [headers, dribbled, paused, silent]) expectErrorShape(cut.responses()[0], 408, 'request_timeout');
    const [uploaded] = await sane.untilResponses(1);
    expect(uploaded?.status).toBe(201);
    await untilIdle(1000);
    await expectServiceAnswers();
  }, 40_000);

  it('many idle keep-alive connections and silent connections cost others nothing; the silent ones are cut off, the kept ones stay usable', async () => {
    const kept = await Promise.all(Array.from({ length: 100 }, () => openRaw(origin())));
    const silent = await Promise.all(Array.from({ length: 100 }, () => openRaw(origin())));
    await Promise.all(kept.map((client) => client.write(requestHead('GET', '/api/v1/nowhere', []))));
    for (const client of kept) expectErrorShape((await client.untilResponses(1))[0], 404, 'route_not_found');

    // While they all sit there, everyone else is served.
    for (let i = 0; i < 5; i++) await expectServiceAnswers();

    const silentClosed = await Promise.all(silent.map((client) => client.closed));
    for (const ms of silentClosed) expect(ms).toBeLessThan((EDGE_LIMITS.headersSeconds + 4) * 1000);
    for (const client of silent) expectErrorShape(client.responses()[0], 408, 'request_timeout');
    // A kept-alive connection idle for less than the idle timeout (API Gateway's 310 s) is still served.
    await Promise.all(kept.map((client) => client.write(requestHead('GET', '/api/v1/nowhere', []))));
    for (const client of kept) {
      const answers = await client.untilResponses(2);
      expectErrorShape(answers[1], 404, 'route_not_found');
      client.abandon();
    }
    await expectServiceAnswers();
  }, 40_000);
});

describe('afterwards', () => {
  it('nothing any of these clients did was logged as a failure of the service; every prediction ended, nothing is held, the balance matches the costs', async () => {
    await expectNothingLeftBehind();
  });
});
