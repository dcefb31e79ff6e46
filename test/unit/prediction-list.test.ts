import { phaseLimitsOf } from '../../shared/catalog/registry.ts';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { QUERIES_PER_PAGE, queryOwnedPredictions } from '../../shared/adapters/owned-predictions.ts';
import { toItem } from '../../shared/adapters/prediction-item.ts';
import { OWNER_INDEX } from '../../shared/adapters/table-keys.ts';
import { listBody, MAX_PAGE_BYTES } from '../../shared/api/prediction-list-page.ts';
import {
  decodeCursor,
  encodeCursor,
  listPageUrl,
  parseInstant,
  parseListRequest,
  type ListCursor,
} from '../../shared/api/prediction-list.ts';
import { formatTimestamp } from '../../shared/domain/clock.ts';
import { asAccountId, newPredictionId, type PredictionId } from '../../shared/domain/ids.ts';
import { type Prediction, type StoredOutput } from '../../shared/domain/prediction.ts';
import { createPrediction } from '../../shared/domain/transition.ts';
import { testCatalog } from '../support/catalog.ts';

const BASE = 'http://127.0.0.1:8080/api/v1';
const OWNER = asAccountId('acct-1');
const AT = Date.parse('2026-11-21T18:27:49.123Z');

const started = (createdAtMs: number, overrides: Partial<{ apiBase: string | null }> = {}): Prediction =>
  createPrediction({
    id: newPredictionId(),
    model: 'prognoz/echo',
    owner: OWNER,
    input: { kind: 'inline', value: { text: 'hi' } },
    webhook: null,
    nowMs: createdAtMs,
    hold: { kopecks: 300, month: '2026-11' },
    limits: phaseLimitsOf(testCatalog.require('prognoz/echo')),
    apiBase: overrides.apiBase ?? BASE,
  });

const succeeded = (createdAtMs: number, output: StoredOutput): Prediction => ({
  ...started(createdAtMs),
  status: 'succeeded',
  startedAt: formatTimestamp(createdAtMs + 10),
  completedAt: formatTimestamp(createdAtMs + 1010),
  runtimeMs: 1000,
  predictTimeMs: null,
  modelMetrics: null,
  streamed: null,
  costKopecks: 1,
  effects: [],
  dataRemoved: false,
  sweepAtMs: null,
  output,
});

const codeAndMessage = (params: Record<string, string>) => {
  const parsed = parseListRequest(params);
  return parsed.ok ? null : { code: parsed.error.code, message: parsed.error.message };
};

describe('created_after and created_before', () => {
  it('read ISO 8601 dates and date-times into the stored form, in UTC', () => {
    expect(parseInstant('2026-11-21T18:27:49.123456Z')).toBe('2026-11-21T18:27:49.123456Z');
    expect(parseInstant('2026-11-21T18:27:49Z')).toBe('2026-11-21T18:27:49.000000Z');
    expect(parseInstant('2026-11-21T18:27Z')).toBe('2026-11-21T18:27:00.000000Z');
    expect(parseInstant('2026-11-21')).toBe('2026-11-21T00:00:00.000000Z');
    expect(parseInstant('2026-11-21T18:27:49')).toBe('2026-11-21T18:27:49.000000Z');
    expect(parseInstant('2026-11-21T21:27:49.5+03:00')).toBe('2026-11-21T18:27:49.500000Z');
    expect(parseInstant('2026-11-21T21:27:49+0300')).toBe('2026-11-21T18:27:49.000000Z');
    expect(parseInstant('2026-11-21T13:27:49-05')).toBe('2026-11-21T18:27:49.000000Z');
    // An unescaped `+` reaches the service as a space.
    expect(parseInstant('2026-11-21T21:27:49 03:00')).toBe('2026-11-21T18:27:49.000000Z');
  });

  it('round what lies past the microsecond up, carrying into the seconds', () => {
    expect(parseInstant('2026-11-21T18:27:49.1234561Z')).toBe('2026-11-21T18:27:49.123457Z');
    expect(parseInstant('2026-11-21T18:27:49.1234560Z')).toBe('2026-11-21T18:27:49.123456Z');
    expect(parseInstant('2026-11-21T18:27:49.9999991Z')).toBe('2026-11-21T18:27:50.000000Z');
  });

  it('refuse what is not a real ISO 8601 time', () => {
    for (const bad of [
      'yesterday',
      '1700000000',
      '2026-02-30',
      '2026-13-01T00:00:00Z',
      '2026-11-21T24:00:00Z',
      '2026-11-21T18:60Z',
      'November 21, 2026',
      '2026-11-21T18:27:49Zjunk',
      '+2026-11-21',
    ]) {
      expect(parseInstant(bad), bad).toBeNull();
    }
    expect(parseInstant('2028-02-29')).toBe('2028-02-29T00:00:00.000000Z');
    expect(parseInstant('2026-02-29')).toBeNull();
  });
});

describe('the list query', () => {
  it('is empty without parameters, and ignores unknown ones and empty values', () => {
    expect(parseListRequest(null)).toEqual({ ok: true, value: { filters: {}, cursor: null } });
    expect(parseListRequest({ page: '3', status: '', cursor: '' })).toEqual({
      ok: true,
      value: { filters: {}, cursor: null },
    });
  });

  it('takes the four filters', () => {
    const parsed = parseListRequest({
      created_after: '2026-11-01',
      created_before: '2026-11-02T00:00:00Z',
      model: 'prognoz/echo',
      status: 'failed',
    });
    expect(parsed).toEqual({
      ok: true,
      value: {
        filters: {
          createdAfter: '2026-11-01T00:00:00.000000Z',
          createdBefore: '2026-11-02T00:00:00.000000Z',
          model: 'prognoz/echo',
          status: 'failed',
        },
        cursor: null,
      },
    });
  });

  it('answers a bad value with invalid_query naming the parameter', () => {
    expect(codeAndMessage({ created_after: 'soon' })).toEqual({
      code: 'invalid_query',
      message: expect.stringContaining('created_after') as string,
    });
    expect(codeAndMessage({ created_before: '2026-99-01' })).toEqual({
      code: 'invalid_query',
      message: expect.stringContaining('created_before') as string,
    });
    expect(codeAndMessage({ model: 'echo' })).toEqual({
      code: 'invalid_query',
      message: expect.stringContaining('model') as string,
    });
    expect(codeAndMessage({ model: 'a/b/c' })).toEqual({
      code: 'invalid_query',
      message: expect.stringContaining('model') as string,
    });
    expect(codeAndMessage({ status: 'done' })).toEqual({
      code: 'invalid_query',
      message: expect.stringContaining('status') as string,
    });
    expect(codeAndMessage({ status: 'SUCCEEDED' })).toEqual({
      code: 'invalid_query',
      message: expect.stringContaining('status') as string,
    });
    expect(codeAndMessage({ cursor: 'bm90LWEtY3Vyc29y' })).toEqual({
      code: 'invalid_query',
      message: expect.stringContaining('cursor') as string,
    });
  });
});

describe('cursors', () => {
  const cursor: ListCursor = {
    toward: 'older',
    position: { createdAt: '2026-11-21T18:27:49.123000Z', id: newPredictionId() },
  };

  it('come back as they went out, URL-safe', () => {
    const encoded = encodeCursor(cursor);
    expect(encoded).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(encoded)).toEqual(cursor);
    expect(parseListRequest({ cursor: encoded })).toEqual({ ok: true, value: { filters: {}, cursor } });
  });

  it('are refused when anything in them is off', () => {
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const { id, createdAt } = cursor.position;
    for (const bad of [
      'not base64 at all!',
      Buffer.from('{not json').toString('base64url'),
      encode({ toward: 'sideways', at: createdAt, id }),
      encode({ toward: 'older', at: '2026-11-21', id }),
      encode({ toward: 'older', at: createdAt, id: 'PREDICTION#x' }),
      encode({ toward: 'older', at: createdAt, id, owner: 'someone-else' }),
      encode([1, 2]),
    ]) {
      expect(decodeCursor(bad), bad).toBeNull();
    }
  });

  it('travel in absolute page links with the same filters', () => {
    const url = new URL(
      listPageUrl(
        BASE,
        { createdAfter: '2026-11-01T00:00:00.000000Z', model: 'prognoz/echo', status: 'succeeded' },
        cursor,
      ),
    );
    expect(`${url.origin}${url.pathname}`).toBe(`${BASE}/predictions`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      created_after: '2026-11-01T00:00:00.000000Z',
      model: 'prognoz/echo',
      status: 'succeeded',
      cursor: encodeCursor(cursor),
    });
  });
});

describe('a page of the list', () => {
  const cursorOf = (link: string | null) =>
    link === null ? null : decodeCursor(new URL(link).searchParams.get('cursor') ?? '');

  it('shows each prediction as GET does, links on both ways, and leaves a stored-away output out', () => {
    const inline = succeeded(AT, { kind: 'inline', value: { text: 'hi' } });
    const stored = succeeded(AT - 1000, { kind: 'object', key: 'outputs/x.json', bytes: 5_000_000 });
    const older = { createdAt: stored.createdAt, id: stored.id };
    const newer = { createdAt: inline.createdAt, id: inline.id };

    const body = listBody({ predictions: [inline, stored], older, newer }, BASE, { status: 'succeeded' }, testCatalog);

    expect(body.results.map((r) => r.id)).toEqual([inline.id, stored.id]);
    expect(body.results[0]).toMatchObject({
      output: { text: 'hi' },
      cost: 0.01,
      urls: { get: `${BASE}/predictions/${inline.id}` },
    });
    expect(body.results[1]).toMatchObject({
      status: 'succeeded',
      output: null,
      urls: { get: `${BASE}/predictions/${stored.id}` },
    });
    expect(cursorOf(body.next)).toEqual({ toward: 'older', position: older });
    expect(cursorOf(body.previous)).toEqual({ toward: 'newer', position: newer });
    expect(new URL(body.next ?? '').searchParams.get('status')).toBe('succeeded');
  });

  it('has no links at either end', () => {
    const body = listBody({ predictions: [started(AT)], older: null, newer: null }, BASE, {}, testCatalog);
    expect(body).toMatchObject({ next: null, previous: null });
  });

  it('stops short of the size limit and goes on after the last prediction it shows', () => {
    const big = (i: number) => ({
      ...started(AT - i * 1000),
      input: { kind: 'inline' as const, value: { text: 'x'.repeat(1_000_000) } },
    });
    const predictions = [0, 1, 2, 3, 4, 5].map(big);

    const body = listBody({ predictions, older: null, newer: null }, BASE, {}, testCatalog);

    expect(body.results).toHaveLength(4);
    expect(Buffer.byteLength(JSON.stringify(body))).toBeLessThan(MAX_PAGE_BYTES + 10_000);
    const shown = predictions[3];
    expect(cursorOf(body.next)).toEqual({ toward: 'older', position: { createdAt: shown?.createdAt, id: shown?.id } });
  });

  it('always shows at least one prediction, however large', () => {
    const huge = { ...started(AT), input: { kind: 'inline' as const, value: { text: 'x'.repeat(100) } } };
    const body = listBody(
      { predictions: [huge, started(AT - 1)], older: null, newer: null },
      BASE,
      {},
      testCatalog,
      10,
    );
    expect(body.results.map((r) => r.id)).toEqual([huge.id]);
    expect(body.next).not.toBeNull();
  });
});

describe('the owner-index query', () => {
  /** A table that has only filtered-out items to read: every query reads on and finds nothing. */
  const endlessMisses = () => {
    const calls: Record<string, unknown>[] = [];
    const client = {
      send: (command: { input: Record<string, unknown> }) => {
        calls.push(command.input);
        const n = calls.length;
        const id = `00000000-0000-4000-8000-${String(n).padStart(12, '0')}` as PredictionId;
        return Promise.resolve({ Items: [], LastEvaluatedKey: { ...toItem({ ...started(AT - n * 1000), id }) } });
      },
    } as unknown as DynamoDBDocumentClient;
    return { client, calls };
  };

  it('bounds the work of a sparse page and goes on from the last item it read', async () => {
    const { client, calls } = endlessMisses();

    const page = await queryOwnedPredictions(
      client,
      'table',
      OWNER,
      { toward: 'older', status: 'failed', limit: 100 },
      AT,
    );

    expect(calls).toHaveLength(QUERIES_PER_PAGE);
    expect(page.predictions).toEqual([]);
    expect(page.older).toEqual({
      createdAt: formatTimestamp(AT - QUERIES_PER_PAGE * 1000),
      id: `00000000-0000-4000-8000-${String(QUERIES_PER_PAGE).padStart(12, '0')}`,
    });
    expect(page.newer).toBeNull();
    expect(calls[0]).toMatchObject({
      IndexName: OWNER_INDEX.name,
      ScanIndexForward: false,
      ExpressionAttributeValues: { ':owner': `ACCOUNT#${OWNER}` },
    });
  });

  it('starts just past the cursor, on the caller’s own partition, whatever the cursor says', async () => {
    const { client, calls } = endlessMisses();
    const after = { createdAt: formatTimestamp(AT), id: newPredictionId() };

    const page = await queryOwnedPredictions(client, 'table', OWNER, { toward: 'newer', after, limit: 100 }, AT);

    expect(calls[0]).toMatchObject({
      ScanIndexForward: true,
      ExclusiveStartKey: {
        pk: `PREDICTION#${after.id}`,
        sk: 'PREDICTION',
        gsi1pk: `ACCOUNT#${OWNER}`,
        gsi1sk: after.createdAt,
      },
    });
    // Nothing found yet: the page before is still the one the cursor came from.
    expect(page.older).toEqual(after);
  });

  it('reads nothing for a cursor past the end of the time range', async () => {
    const { client, calls } = endlessMisses();
    const after = { createdAt: '2026-10-01T00:00:00.000000Z', id: newPredictionId() };

    const page = await queryOwnedPredictions(
      client,
      'table',
      OWNER,
      { toward: 'older', after, createdAfter: '2026-11-01T00:00:00.000000Z', limit: 100 },
      AT,
    );

    expect(calls).toHaveLength(0);
    expect(page).toEqual({ predictions: [], older: null, newer: after });
  });
});
