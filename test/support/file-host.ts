import { createServer } from 'node:http';
import { afterAll, beforeAll } from 'vitest';

export interface HostedFile {
  readonly contentType: string;
  readonly body: string | Buffer;
}

/**
 * A real HTTP server on loopback serving `files` by path (404 for anything else), as a caller's
 * own file host would serve a model's file inputs; started before a test file's tests, closed after.
 * Returns the server's origin, once it listens.
 */
export const fileHostForFile = (files: Readonly<Record<string, HostedFile>>): (() => string) => {
  const server = createServer((req, res) => {
    const file = files[req.url ?? ''];
    if (file) res.writeHead(200, { 'content-type': file.contentType }).end(file.body);
    else res.writeHead(404).end();
  });
  let origin = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  return () => origin;
};
