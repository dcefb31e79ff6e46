import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_DOWNLOAD_LIMITS, downloadToFile } from '../../shared/adapters/guarded-download.ts';
import { closeServer } from '../../local/close-server.ts';

/** The worker's fetcher of file inputs against a real HTTP server on loopback. */
const BODY = Buffer.from('file input bytes\n'.repeat(100));
let server: Server;
let base = '';
const folder = mkdtempSync(path.join(tmpdir(), 'prognoz-download-'));
const loopback = { allowLoopback: true };

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/file') return res.writeHead(200, { 'content-type': 'text/plain' }).end(BODY);
    if (req.url === '/moved') return res.writeHead(302, { location: '/file' }).end();
    if (req.url === '/to-metadata')
      return res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
    if (req.url === '/loop') return res.writeHead(302, { location: '/loop' }).end();
    if (req.url === '/endless') {
      // No length declared: the cap must hold while the bytes arrive.
      res.writeHead(200);
      const chunk = Buffer.alloc(64 * 1024, 1);
      const write = () => {
        while (res.write(chunk)) if (res.destroyed) return;
        res.once('drain', write);
      };
      return write();
    }
    if (req.url === '/drip') {
      res.writeHead(200);
      const timer = setInterval(() => res.write('x'), 100);
      res.on('close', () => clearInterval(timer));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(async () => {
  await closeServer(server);
  rmSync(folder, { recursive: true, force: true });
});

const target = (name: string) => path.join(folder, name);

describe('the guarded download of file inputs', () => {
  it('writes the file and reports its size and sha256, following a redirect', async () => {
    const got = await downloadToFile(`${base}/moved`, target('a'), loopback, DEFAULT_DOWNLOAD_LIMITS);
    expect(got).toMatchObject({
      size: BODY.length,
      sha256: createHash('sha256').update(BODY).digest('hex'),
      finalUrl: `${base}/file`,
    });
    expect(readFileSync(target('a')).equals(BODY)).toBe(true);
  });

  it('refuses loopback unless the runtime allows it, and a redirect to a link-local address always', async () => {
    await expect(
      downloadToFile(`${base}/file`, target('b'), { allowLoopback: false }, DEFAULT_DOWNLOAD_LIMITS),
    ).rejects.toThrow(/private, loopback or link-local/);
    await expect(downloadToFile(`${base}/to-metadata`, target('c'), loopback, DEFAULT_DOWNLOAD_LIMITS)).rejects.toThrow(
      /169\.254\.169\.254.*private, loopback or link-local/,
    );
  });

  it('refuses a host whose name resolves to a private address (the check is on the resolved address)', async () => {
    await expect(
      downloadToFile('http://localhost:9/x', target('d'), { allowLoopback: false }, DEFAULT_DOWNLOAD_LIMITS),
    ).rejects.toThrow(/private, loopback or link-local/);
  });

  it('caps redirects, size and time, and says which', async () => {
    await expect(downloadToFile(`${base}/loop`, target('e'), loopback, DEFAULT_DOWNLOAD_LIMITS)).rejects.toThrow(
      /more than 5 redirects/,
    );
    await expect(
      downloadToFile(`${base}/file`, target('f'), loopback, { ...DEFAULT_DOWNLOAD_LIMITS, maxBytes: 100 }),
    ).rejects.toThrow(/more than the 100 (bytes )?allowed/);
    await expect(
      downloadToFile(`${base}/endless`, target('g'), loopback, { ...DEFAULT_DOWNLOAD_LIMITS, maxBytes: 1024 * 1024 }),
    ).rejects.toThrow(/1048576 bytes allowed/);
    await expect(
      downloadToFile(`${base}/drip`, target('h'), loopback, { ...DEFAULT_DOWNLOAD_LIMITS, timeoutMs: 500 }),
    ).rejects.toThrow(/longer than 0.5 s/);
    await expect(downloadToFile(`${base}/nothing`, target('i'), loopback, DEFAULT_DOWNLOAD_LIMITS)).rejects.toThrow(
      /HTTP 404/,
    );
    await expect(downloadToFile('ftp://example.com/x', target('j'), loopback, DEFAULT_DOWNLOAD_LIMITS)).rejects.toThrow(
      /only http\(s\)/,
    );
  });

  it('stops at once when the run is stopped', async () => {
    const stop = new AbortController();
    const started = Date.now();
    const download = downloadToFile(`${base}/drip`, target('k'), loopback, DEFAULT_DOWNLOAD_LIMITS, stop.signal);
    setTimeout(() => stop.abort(), 200);
    await expect(download).rejects.toThrow(/stopped/);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
