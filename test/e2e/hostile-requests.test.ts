import { beforeAll, describe, expect, it } from 'vitest';
import { EDGE_LIMITS } from '../../shared/api/edge-limits.ts';
import { call, createPrediction, runtime } from '../support/api.ts';
import {
  auth,
  expectErrorShape,
  expectNothingLeftBehind,
  expectServiceAnswers,
  jsonHead,
  openHostileAccount,
  origin,
  predictionsOfAccount,
} from '../support/hostile-client.ts';
import { openRaw, requestHead } from '../support/raw-http.ts';

/**
 * Clients that send what HTTP refuses, or ask in ways the API must not take two ways, over real
 * sockets against the running service: each gets a clear 4xx in the one error shape, nothing is
 * made, and the service answers everyone else.
 */

let token = '';
beforeAll(async () => {
  token = await openHostileAccount();
});

describe('a client that sends what HTTP refuses', () => {
  const refused: { name: string; request: string | Buffer; status: number; code: string }[] = [
    {
      name: 'headers over the limit',
      request: requestHead('GET', '/api/v1/account', [auth(), ['x-padding', 'a'.repeat(EDGE_LIMITS.headerBytes)]]),
      status: 431,
      code: 'request_headers_too_large',
    },
    {
      name: 'a request line over the limit',
      request: requestHead('GET', `/api/v1/${'a'.repeat(EDGE_LIMITS.headerBytes)}`, []),
      status: 431,
      code: 'request_headers_too_large',
    },
    {
      name: 'a control character in a header',
      request: requestHead('GET', '/api/v1/account', [auth(), ['x-note', 'a\u0001b']]),
      status: 400,
      code: 'malformed_request',
    },
    {
      name: 'raw UTF-8 in a header name',
      request: Buffer.from(requestHead('GET', '/api/v1/account', [auth(), ['x-заметка', 'a']])),
      status: 400,
      code: 'malformed_request',
    },
    {
      name: 'raw UTF-8 in the request line',
      request: Buffer.from(requestHead('GET', '/api/v1/предсказания', [auth()])),
      status: 400,
      code: 'malformed_request',
    },
    {
      name: 'Content-Length with Transfer-Encoding',
      request: `${requestHead('POST', '/api/v1/prognoz/echo', [auth(), ['content-length', '5'], ['transfer-encoding', 'chunked']])}0\r\n\r\n`,
      status: 400,
      code: 'malformed_request',
    },
    {
      name: 'two Content-Lengths',
      request: `${requestHead('POST', '/api/v1/prognoz/echo', [auth(), ['content-length', '2'], ['content-length', '3']])}{}`,
      status: 400,
      code: 'malformed_request',
    },
    {
      name: 'a broken chunk',
      request: `${requestHead('POST', '/api/v1/prognoz/echo', [auth(), ['content-type', 'application/json'], ['transfer-encoding', 'chunked']])}zz\r\n{}\r\n0\r\n\r\n`,
      status: 400,
      code: 'malformed_request',
    },
    { name: 'a malformed request line', request: 'HELLO THERE\r\n\r\n', status: 400, code: 'malformed_request' },
    { name: 'no Host header', request: 'GET /api/v1/account HTTP/1.1\r\n\r\n', status: 400, code: 'malformed_request' },
    {
      name: 'a target that is no path',
      request: requestHead('GET', 'http://[', []),
      status: 400,
      code: 'malformed_request',
    },
    {
      name: 'CONNECT',
      request: requestHead('CONNECT', 'example.com:443', []),
      status: 405,
      code: 'method_not_allowed',
    },
    {
      name: 'an expectation other than 100-continue',
      request: `${requestHead('POST', '/api/v1/prognoz/echo', [auth(), ['expect', 'teapot'], ['content-length', '2']])}{}`,
      status: 417,
      code: 'malformed_request',
    },
  ];

  it.each(refused)(
    '$name: answered $status in the error shape, then the connection closes',
    async ({ request, status, code }) => {
      const client = await openRaw(origin());
      await client.write(request);
      const [answer] = await client.untilResponses(1);
      expectErrorShape(answer, status, code);
      expect(answer?.headers.connection).toBe('close');
      await client.closed;
      await expectServiceAnswers();
    },
  );

  it('raw UTF-8 in a header value is the handler’s to judge, and answered like any request', async () => {
    const client = await openRaw(origin());
    await client.write(Buffer.from(requestHead('GET', '/api/v1/account', [auth(), ['x-note', 'привет']])));
    const [answer] = await client.untilResponses(1);
    expect(answer?.status).toBe(200);
    client.abandon();
  });

  it('a body over 10 MiB is answered 413 in the error shape before the connection closes, declared or chunked, however large', async () => {
    const url = new URL('prognoz/echo', runtime().apiUrl);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const declared = await fetch(url, { method: 'POST', headers, body: Buffer.alloc(EDGE_LIMITS.bodyBytes + 1, 32) });
    const huge = await fetch(url, { method: 'POST', headers, body: Buffer.alloc(60 * 1024 * 1024, 32) });
    const chunked = await fetch(url, {
      method: 'POST',
      headers,
      duplex: 'half',
      body: new ReadableStream({
        start(controller) {
          for (let i = 0; i < 200; i++) controller.enqueue(new Uint8Array(64 * 1024).fill(32));
          controller.close();
        },
      }),
    });
    for (const answer of [declared, huge, chunked]) {
      expect(answer.status).toBe(413);
      expect(await answer.json()).toMatchObject({ error: { code: 'payload_too_large' } });
    }
    await expectServiceAnswers();
  });

  it('pipelined requests are answered in order, up to one HTTP refuses', async () => {
    const create = JSON.stringify({ text: 'piped' });
    const client = await openRaw(origin());
    await client.write(
      requestHead('GET', '/api/v1/account', [auth()]) +
        requestHead('GET', '/api/v1/nowhere', []) +
        jsonHead('/api/v1/prognoz/echo', create) +
        create +
        requestHead('GET', '/api/v1/account', [auth()]) +
        'HELLO THERE\r\n\r\n' +
        requestHead('GET', '/api/v1/account', [auth()]),
    );
    await client.closed;
    const answers = client.responses();
    expect(answers.map((answer) => answer.status)).toEqual([200, 404, 201, 200, 400]);
    expectErrorShape(answers[4], 400, 'malformed_request');
  });
});

describe('a client that asks in ways the API must not take two ways', () => {
  it('two different Webhook-URL headers are a 400 conflict, the same one twice is one address', async () => {
    const create = JSON.stringify({ text: 'hooks' });
    const twice = async (name: string, first: string, second: string) => {
      const client = await openRaw(origin());
      await client.write(
        jsonHead('/api/v1/prognoz/echo', create, [
          [name, first],
          [name, second],
        ]) + create,
      );
      const [answer] = await client.untilResponses(1);
      client.abandon();
      return answer;
    };
    for (const name of ['webhook-url', 'x-webhook-url'])
      expectErrorShape(await twice(name, 'http://127.0.0.1:9/a', 'http://127.0.0.1:9/b'), 400, 'webhook_conflict');
    const same = await twice('webhook-url', 'http://127.0.0.1:9/a', 'http://127.0.0.1:9/a');
    expect(same?.status).toBe(201);
    expect(JSON.parse(same?.body ?? '{}')).toMatchObject({ webhook: 'http://127.0.0.1:9/a' });
  });

  it('a single-valued header sent twice with different values is a 400', async () => {
    const create = JSON.stringify({ text: 'types' });
    const client = await openRaw(origin());
    await client.write(
      jsonHead('/api/v1/prognoz/echo', create, [
        ['idempotency-key', '"a"'],
        ['idempotency-key', '"b"'],
      ]) + create,
    );
    const [answer] = await client.untilResponses(1);
    expectErrorShape(answer, 400, 'invalid_header');
    client.abandon();
  });

  it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf', '__proto__[polluted]'])(
    'a form field named %s is an unknown input (422 naming it), and changes nothing',
    async (field) => {
      const before = (await predictionsOfAccount()).length;
      const response = await call('prognoz/echo', {
        token,
        body: new URLSearchParams({ [field]: 'x', text: 'form' }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(response.status).toBe(422);
      expect(response.json).toMatchObject({ error: { code: 'invalid_input', fields: [{ field }] } });
      expect(await predictionsOfAccount()).toHaveLength(before);
      // Nothing was touched on the way: a plain create still reads as it should.
      const plain = await createPrediction({ text: 'after' }, { token });
      expect(plain.status).toBe(201);
      expect(plain.json).not.toHaveProperty('polluted');
      expect(plain.json.input).toEqual({ text: 'after', repeat: 1, sleep: 0, fail: false });
    },
  );
});

describe('afterwards', () => {
  it('nothing any of these clients did was logged as a failure of the service; every prediction ended, nothing is held, the balance matches the costs', async () => {
    await expectNothingLeftBehind();
  });
});
