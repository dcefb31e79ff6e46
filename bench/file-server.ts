import { createReadStream, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { closeServer } from '../local/close-server.ts';

/** Serves a fixed set of files by name over HTTP, as a caller's storage would serve inputs. */
export const serveFiles = async (
  files: readonly string[],
): Promise<{ urlOf(file: string): string; close(): Promise<void> }> => {
  const byName = new Map(files.map((file) => [`/${path.basename(file)}`, file]));
  const server: Server = createServer((req, res) => {
    const file = byName.get(req.url ?? '');
    if (!file) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': statSync(file).size });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    urlOf: (file) => `${origin}/${path.basename(file)}`,
    close: () => closeServer(server),
  };
};
