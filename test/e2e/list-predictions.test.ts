import { phaseLimitsOf } from '../../shared/catalog/registry.ts';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { setTimeout as sleep } from 'node:timers/promises';
import Replicate from 'replicate';
import { beforeAll, describe, expect, it } from 'vitest';
import { toItem } from '../../shared/adapters/prediction-item.ts';
import type { PredictionListBody } from '../../shared/api/prediction-view-schema.ts';
import type { PredictionView } from '../../shared/api/prediction-view.ts';
import { formatTimestamp } from '../../shared/domain/clock.ts';
import { asAccountId, newPredictionId, type AccountId } from '../../shared/domain/ids.ts';
import { type TerminalPrediction } from '../../shared/domain/prediction.ts';
import { createPrediction as newPrediction } from '../../shared/domain/transition.ts';
import {
  accountOf,
  call,
  createOtherAccount,
  createPrediction,
  getPrediction,
  localDynamo,
  runtime,
  untilTerminal,
} from '../support/api.ts';
import { testCatalog } from '../support/catalog.ts';

const SEEDED = 200;
const REAL = 5;
/** Seeded predictions are made this many at a time, so that pages end inside a run of equal created_at. */
const SAME_MOMENT = 7;
const WHISPER = 'openai/whisper-base';
const ECHO = 'prognoz/echo';

interface Seeded {
  readonly id: string;
  readonly createdAtMs: number;
  readonly model: string;
  readonly status: TerminalPrediction['status'];
}

/** A finished prediction as the service would have stored it, `i` steps back from `startMs`. */
const finished = (owner: AccountId, i: number, startMs: number): TerminalPrediction => {
  const createdAtMs = startMs - Math.floor(i / SAME_MOMENT) * 1000;
  const started = newPrediction({
    id: newPredictionId(),
    model: i % 4 === 0 ? WHISPER : ECHO,
    owner,
    input: { kind: 'inline', value: { text: `seeded ${i}` } },
    webhook: null,
    apiBase: runtime().apiUrl.replace(/\/$/, ''),
    nowMs: createdAtMs,
    hold: { kopecks: 0, month: formatTimestamp(createdAtMs).slice(0, 7) },
    limits: phaseLimitsOf(testCatalog.require(i % 4 === 0 ? WHISPER : ECHO)),
  });
  const done = {
    ...started,
    startedAt: formatTimestamp(createdAtMs + 100),
    completedAt: formatTimestamp(createdAtMs + 600),
    runtimeMs: 500,
    predictTimeMs: null,
    modelMetrics: null,
    streamed: null,
    costKopecks: 1,
    effects: [],
    dataRemoved: false,
    // Nothing owed: the sweeper leaves these alone.
    sweepAtMs: null,
  };
  switch (i % 3) {
    case 0:
      // One output kept in the outputs bucket, as a large one would be.
      return {
        ...done,
        status: 'succeeded',
        runtimeMs: 500,
        output:
          i === 30
            ? { kind: 'object', key: `outputs/${started.id}.json`, bytes: 6_000_000 }
            : { kind: 'inline', value: { text: `seeded ${i}` } },
      };
    case 1:
      return { ...done, status: 'failed', error: 'the model failed' };
    default:
      return { ...done, status: 'canceled', error: null };
  }
};

/** Writes items straight into the service's table, as a past of finished predictions. */
const putItems = async (items: Record<string, unknown>[]): Promise<void> => {
  const dynamo = localDynamo();
  for (let i = 0; i < items.length; i += 25) {
    let batch: Record<string, unknown>[] = items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } }));
    while (batch.length > 0) {
      const { UnprocessedItems } = await dynamo.send(
        new BatchWriteCommand({ RequestItems: { [runtime().tableName]: batch } }),
      );
      batch = UnprocessedItems?.[runtime().tableName] ?? [];
    }
  }
};

const list = (pathOrUrl: string, token: string) => call<PredictionListBody>(pathOrUrl, { token });

/** Every page from `start`, following `next` (or `previous`) to the end. */
const walk = async (
  start: string,
  token: string,
  link: 'next' | 'previous' = 'next',
): Promise<PredictionListBody[]> => {
  const pages: PredictionListBody[] = [];
  let url: string | null = start;
  while (url !== null) {
    const response = await list(url, token);
    expect(response.status, JSON.stringify(response.json)).toBe(200);
    pages.push(response.json);
    url = response.json[link];
    if (pages.length > 50) throw new Error('the pages never end');
  }
  return pages;
};

const idsOf = (pages: PredictionListBody[]): string[] =>
  pages.flatMap((page) => page.results.map((result) => result.id));

const expectNewestFirst = (results: readonly PredictionView[]) => {
  const times = results.map((result) => result.created_at);
  expect(times).toEqual([...times].sort().reverse());
};

describe('GET /predictions', () => {
  let token: string;
  let seeded: Seeded[];
  let real: string[];
  /** Just after the newest seeded prediction: the real ones come after it. */
  let seededUntilMs: number;
  let expiredId: string;

  beforeAll(async () => {
    token = await createOtherAccount({ balanceKopecks: 100_000 });
    const owner = asAccountId((await accountOf(token)).id);
    const startMs = Date.now() - 3_600_000;
    seededUntilMs = startMs + 1;
    const predictions = Array.from({ length: SEEDED }, (_, i) => finished(owner, i, startMs));
    seeded = predictions.map((p) => ({
      id: p.id,
      createdAtMs: Date.parse(p.createdAt),
      model: p.model,
      status: p.status,
    }));
    const expired = finished(owner, 3, startMs);
    expiredId = expired.id;
    // Expired but not yet removed by TTL (which can lag by days): no one may see it any more.
    await putItems([
      ...predictions.map(toItem),
      { ...toItem(expired), expires_at: Math.floor(Date.now() / 1000) - 60 },
    ]);

    real = [];
    for (let i = 0; i < REAL; i++) {
      const created = await createPrediction({ text: `real ${i}` }, { token });
      expect(created.status).toBe(201);
      real.push(created.json.id);
    }
    await Promise.all(real.map((id) => untilTerminal(id, 30_000, { token })));

    // The index by owner is read eventually consistently: wait until the newest show there.
    const deadline = Date.now() + 15_000;
    for (;;) {
      const { json } = await list('predictions', token);
      const shown = new Set(json.results.map((r) => r.id));
      if (real.every((id) => shown.has(id))) break;
      if (Date.now() > deadline) throw new Error('the new predictions never showed in the list');
      await sleep(200);
    }
  });

  it('walks next to the end: every prediction once, newest first, 100 a page', async () => {
    const pages = await walk('predictions', token);

    expect(pages.map((page) => page.results.length)).toEqual([100, 100, 5]);
    const ids = idsOf(pages);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids)).toEqual(new Set([...real, ...seeded.map((s) => s.id)]));
    expect(ids).not.toContain(expiredId);
    expect(ids.slice(0, REAL).toSorted()).toEqual(real.toSorted());
    expectNewestFirst(pages.flatMap((page) => page.results));

    expect(pages[0]?.previous).toBeNull();
    expect(pages.at(-1)?.next).toBeNull();
    for (const page of pages.slice(0, -1)) {
      const next = new URL(page.next ?? '');
      expect(`${next.origin}${next.pathname}`).toBe(`${runtime().apiUrl}predictions`);
      expect([...next.searchParams.keys()]).toEqual(['cursor']);
    }
  });

  it('shows each as GET /predictions/{id} does, but a stored-away output as null', async () => {
    const pages = await walk('predictions', token);
    const byId = new Map(pages.flatMap((page) => page.results).map((result) => [result.id, result]));

    for (const id of [real[0] ?? '', seeded[1]?.id ?? '', seeded[3]?.id ?? '']) {
      expect(byId.get(id)).toEqual((await getPrediction(id, { token })).json);
    }
    expect(byId.get(seeded[0]?.id ?? '')).toMatchObject({
      status: 'succeeded',
      output: { text: 'seeded 0' },
      cost: 0.01,
    });
    expect(byId.get(seeded[30]?.id ?? '')).toMatchObject({
      status: 'succeeded',
      output: null,
      urls: { get: `${runtime().apiUrl}predictions/${seeded[30]?.id}` },
    });
  });

  it('walks previous back to the first page, the same pages in reverse', async () => {
    const forward = await walk('predictions', token);
    const last = forward.at(-1);
    if (!last?.previous) throw new Error('the last page has no previous link');

    const backward = await walk(last.previous, token, 'previous');

    expect(backward.map((page) => page.results.map((r) => r.id))).toEqual(
      forward
        .slice(0, -1)
        .reverse()
        .map((page) => page.results.map((r) => r.id)),
    );
    // And forward again from a page reached going back.
    const second = backward[0];
    expect(second?.next).toBeTruthy();
    expect(idsOf([(await list(second?.next ?? '', token)).json])).toEqual(idsOf([last]));
  });

  it('keeps to created_after (inclusive) and created_before (exclusive), across pages', async () => {
    const pages = await walk(`predictions?created_before=${formatTimestamp(seededUntilMs)}`, token);
    expect(pages.map((page) => page.results.length)).toEqual([100, 100]);
    expect(new Set(idsOf(pages))).toEqual(new Set(seeded.map((s) => s.id)));
    expect(pages[0]?.next).toContain('created_before=');

    const from = seeded[20]?.createdAtMs ?? 0;
    const until = seeded[3]?.createdAtMs ?? 0;
    // The same window written in Moscow time (an escaped `+`).
    const moscow = (ms: number) =>
      encodeURIComponent(new Date(ms + 3 * 3_600_000).toISOString().replace('Z', '+03:00'));
    const window = await walk(`predictions?created_after=${moscow(from)}&created_before=${moscow(until)}`, token);
    const expected = seeded.filter((s) => s.createdAtMs >= from && s.createdAtMs < until);
    expect(expected.length).toBeGreaterThan(0);
    expect(idsOf(window).toSorted()).toEqual(expected.map((s) => s.id).toSorted());
    expectNewestFirst(window.flatMap((page) => page.results));
  });

  it('keeps to a model and a status, alone and together', async () => {
    const whisper = await walk(`predictions?model=${WHISPER}`, token);
    expect(idsOf(whisper).toSorted()).toEqual(
      seeded
        .filter((s) => s.model === WHISPER)
        .map((s) => s.id)
        .toSorted(),
    );

    const failed = await walk('predictions?status=failed', token);
    expect(idsOf(failed).toSorted()).toEqual(
      seeded
        .filter((s) => s.status === 'failed')
        .map((s) => s.id)
        .toSorted(),
    );
    expect(failed.flatMap((page) => page.results).every((r) => r.status === 'failed')).toBe(true);

    const canceledEcho = await walk(
      `predictions?model=${ECHO}&status=canceled&created_before=${formatTimestamp(seededUntilMs)}`,
      token,
    );
    expect(idsOf(canceledEcho).toSorted()).toEqual(
      seeded
        .filter((s) => s.model === ECHO && s.status === 'canceled')
        .map((s) => s.id)
        .toSorted(),
    );

    const succeeded = await walk('predictions?status=succeeded', token);
    expect(idsOf(succeeded)).toEqual(expect.arrayContaining(real));
    expectNewestFirst(succeeded.flatMap((page) => page.results));

    expect((await list('predictions?model=nobody/nothing', token)).json).toEqual({
      results: [],
      next: null,
      previous: null,
    });
  });

  it('shows another account none of them, not even through this account’s cursor', async () => {
    const other = await createOtherAccount();
    expect((await list('predictions', other)).json).toEqual({ results: [], next: null, previous: null });

    const ours = new Set([...real, ...seeded.map((s) => s.id)]);
    const first = (await list('predictions', token)).json;
    const borrowed = await list(first.next ?? '', other);
    expect(borrowed.status).toBe(200);
    expect(borrowed.json.results).toEqual([]);

    const main = (await list('predictions', runtime().apiToken)).json;
    expect(main.results.filter((r) => ours.has(r.id))).toEqual([]);
  });

  it('answers a bad parameter with 400 invalid_query naming it', async () => {
    for (const [query, name] of [
      ['created_after=yesterday', 'created_after'],
      ['created_before=2026-13-01T00:00:00Z', 'created_before'],
      ['status=done', 'status'],
      ['model=echo', 'model'],
      ['cursor=not-a-cursor', 'cursor'],
    ] as const) {
      const response = await call(`predictions?${query}`, { token });
      expect(response.status, query).toBe(400);
      expect(response.json).toMatchObject({
        error: { code: 'invalid_query', message: expect.stringContaining(name) as string },
      });
    }
    // Unknown parameters are ignored.
    expect((await list('predictions?page=2', token)).status).toBe(200);
  });

  it('is paged through by the official replicate client', async () => {
    const replicate = new Replicate({ auth: token, baseUrl: runtime().apiUrl.replace(/\/$/, '') });

    const first = await replicate.predictions.list();
    expect(first.results).toHaveLength(100);
    expect(first.next).toEqual(expect.any(String));

    const ids: string[] = [];
    // As Replicate documents it: the client binds its methods.
    // eslint-disable-next-line @typescript-eslint/unbound-method
    for await (const page of replicate.paginate(replicate.predictions.list)) ids.push(...page.map((p) => p.id));
    expect(ids).toHaveLength(SEEDED + REAL);
    expect(new Set(ids)).toEqual(new Set([...real, ...seeded.map((s) => s.id)]));
  });
});
