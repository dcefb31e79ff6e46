import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrediction, untilTerminal } from '../support/api.ts';

describe('a model that fails', () => {
  it('ends the prediction failed with the model error', async () => {
    const created = await createPrediction({ fail: true });
    const done = await untilTerminal(created.json.id);
    expect(done.status).toBe('failed');
    expect(done.error).toBe('prognoz/echo failed on purpose (input fail: true)');
    expect(done.output).toBeNull();
  });
});

describe('file inputs', () => {
  const content = Buffer.from('prognoz '.repeat(10_000));
  let server: Server;
  let base = '';
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/file.bin') res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(content);
      else if (req.url === '/moved') res.writeHead(302, { location: '/file.bin' }).end();
      else res.writeHead(404).end('no');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('are fetched (loopback is allowed in the local runtime) and reported by size and sha256', async () => {
    const sha256 = createHash('sha256').update(content).digest('hex');
    for (const path of ['/file.bin', '/moved']) {
      const done = await createPrediction({ file: `${base}${path}` }, { headers: { prefer: 'wait' } });
      expect(done.json.status).toBe('succeeded');
      expect(done.json.output).toEqual({ text: 'hello', file: { size: content.length, sha256 } });
    }
  });

  it('that cannot be fetched fail the prediction with a clear error', async () => {
    const done = await createPrediction({ file: `${base}/missing` }, { headers: { prefer: 'wait' } });
    expect(done.json.status).toBe('failed');
    expect(done.json.error).toContain('HTTP 404');
  });
});
