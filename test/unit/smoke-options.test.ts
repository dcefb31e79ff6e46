import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { readEventStream } from '../../cli/smoke/event-stream.ts';
import { parseSmokeOptions, webhookPlan, type SmokeOptions } from '../../cli/smoke/options.ts';
import { closeServer } from '../../local/close-server.ts';

const parse = (...argv: string[]): SmokeOptions => {
  const parsed = parseSmokeOptions(argv, {});
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
};

describe('the smoke test’s command line', () => {
  it('takes the stack’s ApiUrl as it is, and an origin as its /api/v1/', () => {
    expect(
      parse('--base-url', 'https://abc.execute-api.eu-west-1.amazonaws.com/prod/api/v1/', '--token', 't').baseUrl.href,
    ).toBe('https://abc.execute-api.eu-west-1.amazonaws.com/prod/api/v1/');
    expect(parse('--base-url', 'http://127.0.0.1:8080', '--token', 't').baseUrl.href).toBe(
      'http://127.0.0.1:8080/api/v1/',
    );
    expect(parse('--base-url', 'http://127.0.0.1:8080/api/v1', '--token', 't').baseUrl.href).toBe(
      'http://127.0.0.1:8080/api/v1/',
    );
  });

  it('defaults to the echo model with inputs it accepts, and reads the token from PROGNOZ_API_TOKEN', () => {
    const parsed = parseSmokeOptions(['--base-url', 'http://127.0.0.1:8080'], { PROGNOZ_API_TOKEN: 'pgz_env' });
    expect(parsed).toMatchObject({
      ok: true,
      value: {
        token: 'pgz_env',
        model: 'prognoz/echo',
        input: { text: 'smoke' },
        busyInput: { text: 'smoke', sleep: 60 },
        listen: { host: '127.0.0.1', port: 0 },
        timeoutSeconds: 600,
      },
    });
  });

  it('reads --listen as a port or a host and port', () => {
    const listen = (value: string) => parse('--base-url', 'http://h', '--token', 't', '--listen', value).listen;
    expect(listen('9000')).toEqual({ host: '127.0.0.1', port: 9000 });
    expect(listen('0.0.0.0:9000')).toEqual({ host: '0.0.0.0', port: 9000 });
    expect(listen('[::1]:9000')).toEqual({ host: '::1', port: 9000 });
  });

  it('says everything that is wrong with a command line at once', () => {
    expect(
      parseSmokeOptions(
        ['--base-url', 'ftp://h', '--model', 'echo', '--input', '[1]', '--listen', 'x:99999', '--timeout', '0'],
        {},
      ),
    ).toEqual({
      ok: false,
      error: expect.stringMatching(
        /--base-url must be an http\(s\) URL; give an API token.*; --model must be OWNER\/NAME; --input must be a JSON object; --listen: a port is at most 65535; --timeout is a whole number of seconds/,
      ) as string,
    });
    expect(parseSmokeOptions(['--bogus'], {})).toMatchObject({
      ok: false,
      error: expect.stringContaining('--bogus') as string,
    });
  });
});

describe('where the smoke test receives its webhook', () => {
  const plan = (...argv: string[]) => webhookPlan(parse('--token', 't', ...argv));

  it('from a service on loopback: on its own loopback address (the local runtime delivers there)', () => {
    for (const base of ['http://127.0.0.1:8080', 'http://localhost:8080', 'http://[::1]:8080'])
      expect(plan('--base-url', base)).toEqual({ kind: 'receive', listen: { host: '127.0.0.1', port: 0 }, url: null });
  });

  it('from a deployed service: only at the address given, else not at all, saying why', () => {
    const deployed = 'https://abc.execute-api.eu-west-1.amazonaws.com/prod/api/v1/';
    expect(plan('--base-url', deployed)).toEqual({
      kind: 'skip',
      reason: expect.stringContaining('cannot reach a receiver on this machine; give --webhook-url') as string,
    });
    expect(plan('--base-url', deployed, '--webhook-url', 'https://smoke.example.net/hook', '--listen', '8181')).toEqual(
      {
        kind: 'receive',
        listen: { host: '127.0.0.1', port: 8181 },
        url: new URL('https://smoke.example.net/hook'),
      },
    );
  });
});

describe('the smoke test’s event-stream reader', () => {
  it('joins data lines, skips comments, copes with events split across chunks, and stops at the last event', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': keep-alive\n\nevent: output\nid: 1\ndata: first\ndata: sec');
      setTimeout(() => {
        res.write('ond\n\nevent: done\nid: 2\ndata: {}\n\n');
        // Never ended by the server: the reader stops at done by itself.
      }, 50);
    });
    server.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const read = await readEventStream(url, 'done', AbortSignal.timeout(5000));
      expect(read).toMatchObject({ status: 200, body: null });
      expect(read.events.map(({ event, id, data }) => ({ event, id, data }))).toEqual([
        { event: 'output', id: '1', data: 'first\nsecond' },
        { event: 'done', id: '2', data: '{}' },
      ]);
    } finally {
      await closeServer(server);
    }
  });
});
