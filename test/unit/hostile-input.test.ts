import { Writable } from 'node:stream';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { parseBody } from '../../functions/http/body.ts';
import { callerGone, watchCaller } from '../../functions/http/caller.ts';
import { distinctHeaderValues, mergedHeaderValues, singleValuedHeaders } from '../../functions/http/headers.ts';
import { coerceFormInput } from '../../shared/catalog/registry.ts';
import { EDGE_PACE, slownessOf } from '../../local/request-body.ts';
import { codeOf } from '../support/error-code.ts';
import { testCatalog } from '../support/catalog.ts';

const event = (parts: Partial<APIGatewayProxyEvent>) =>
  ({ headers: {}, multiValueHeaders: {}, body: null, isBase64Encoded: false, ...parts }) as APIGatewayProxyEvent;

/** Runs a middleware's `before` on an event, as middy would. */
const before = (middleware: ReturnType<typeof mergedHeaderValues>, on: APIGatewayProxyEvent) =>
  void middleware.before?.({ event: on, context: {} as Context, response: undefined, error: undefined, internal: {} });

describe('the pace a body must keep', () => {
  const at = (bytes: number, elapsedMs: number, quietMs = 0) => slownessOf(EDGE_PACE, { bytes, elapsedMs, quietMs });

  it('lets any body take its first seconds, then asks for the least rate on average', () => {
    expect(at(0, EDGE_PACE.graceMs - 1)).toBeNull();
    expect(at(EDGE_PACE.minBytesPerSecond, EDGE_PACE.graceMs + 1000)).toBeNull();
    expect(at(EDGE_PACE.minBytesPerSecond - 1, EDGE_PACE.graceMs + 1000)).toMatch(/slower than/);
    expect(at(1, EDGE_PACE.graceMs + 250)).toMatch(/slower than/);
  });

  it('cuts a body that pauses too long, however much came before', () => {
    expect(at(10_000_000, 5000, EDGE_PACE.idleMs - 1)).toBeNull();
    expect(at(10_000_000, 5000, EDGE_PACE.idleMs)).toMatch(/paused/);
  });
});

describe('repeated headers', () => {
  it('are merged whatever case each was sent in, every value kept', () => {
    const sent = event({
      headers: { 'Webhook-URL': 'https://b.example' },
      multiValueHeaders: { 'Webhook-URL': ['https://a.example'], 'webhook-url': ['https://b.example'] },
    });
    before(mergedHeaderValues(), sent);
    expect(distinctHeaderValues(sent, 'webhook-url')).toEqual(['https://a.example', 'https://b.example']);
  });

  it('a single-valued header with two different values is a 400; the same value twice is one', () => {
    const twice = (values: string[]) => {
      const sent = event({ multiValueHeaders: { 'idempotency-key': values } });
      return codeOf(() => before(singleValuedHeaders(), sent));
    };
    expect(twice(['"a"', '"b"'])).toBe('invalid_header');
    expect(twice(['"a"', '"a"'])).toBeUndefined();
    expect(twice(['"a"'])).toBeUndefined();
  });
});

describe('form bodies', () => {
  const form = (body: string) =>
    parseBody(event({ headers: { 'content-type': 'application/x-www-form-urlencoded' }, body }));

  it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf'])(
    'a field named %s is a field like any other: its own property, the prototype untouched',
    (name) => {
      const parsed = form(`${encodeURIComponent(name)}=x&text=hi`);
      expect(Object.hasOwn(parsed.value, name)).toBe(true);
      expect(Object.getPrototypeOf(parsed.value)).toBe(Object.prototype);
      const coerced = coerceFormInput(testCatalog.require('prognoz/echo'), parsed.value as Record<string, string>);
      expect(Object.hasOwn(coerced, name)).toBe(true);
      expect(Object.getPrototypeOf(coerced)).toBe(Object.prototype);
      expect(coerced[name]).toBe('x');
    },
  );

  it('a field given twice is still refused', () => {
    expect(codeOf(() => form('text=a&text=b'))).toBe('invalid_body');
  });
});

describe('a caller who leaves a streamed answer', () => {
  const stream = () => new Writable({ write: (_chunk, _encoding, done) => done() });
  const context = () => ({ awsRequestId: 'test' }) as Context;

  it('aborts the signal when the stream closes before its end, or breaks', () => {
    const [closed, broken] = [stream(), stream()];
    const [first, second] = [context(), context()];
    const watches = [watchCaller(closed, first), watchCaller(broken, second)];
    closed.destroy();
    broken.destroy(new Error('reset'));
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        expect(callerGone(first).aborted).toBe(true);
        expect(callerGone(second).aborted).toBe(true);
        expect(watches.map((watch) => watch.gone)).toEqual([true, true]);
        resolve();
      }),
    );
  });

  it('does not when the answer was sent whole', async () => {
    const finished = stream();
    const ctx = context();
    const watch = watchCaller(finished, ctx);
    await new Promise<void>((resolve) => finished.end('done', resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(watch.gone).toBe(false);
    expect(callerGone(ctx).aborted).toBe(false);
  });

  it('a buffered route, which Lambda runs to its end, is never told of it', () => {
    expect(callerGone(context()).aborted).toBe(false);
  });
});
