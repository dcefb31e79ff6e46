import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeServer } from '../../local/close-server.ts';
import { prepareInputs, type Download } from '../../worker/run-inputs.ts';
import { SharedFolders } from '../../worker/shared-folders.ts';

const root = mkdtempSync(path.join(tmpdir(), 'prognoz-run-inputs-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A download that writes the URL's last part as the file's text. */
const download: Download = (url, file) => {
  writeFileSync(file, new URL(url).pathname.slice(1));
  return Promise.resolve();
};

describe("a run's input, as the model server is given it", () => {
  const model = {
    files: [
      { name: 'document', list: false },
      { name: 'pages', list: true },
    ],
    nullWhenOmitted: ['note', 'extra'],
  };

  it('has each file input fetched into the run folder and given as the address the model server fetches it at', async () => {
    const folder = path.join(root, 'run-1');
    const given = await prepareInputs(
      model,
      { document: 'https://files.example/a.txt', pages: ['https://files.example/b.md', 'https://files.example/c'] },
      { path: folder, urlOf: (file) => `http://worker:1/${path.relative(folder, file)}` },
      download,
      new AbortController().signal,
    );
    expect(given).toEqual({
      document: 'http://worker:1/document.txt',
      pages: ['http://worker:1/pages-0.md', 'http://worker:1/pages-1'],
      note: null,
      extra: null,
    });
    expect(readFileSync(path.join(folder, 'pages-0.md'), 'utf8')).toBe('b.md');
  });

  it('gives null for an omitted input that may be null, and leaves one that was given as it was', async () => {
    const given = await prepareInputs(
      { files: [], nullWhenOmitted: ['note', 'extra'] },
      { note: 'kept', value: 1 },
      { path: path.join(root, 'run-2'), urlOf: () => '' },
      download,
      new AbortController().signal,
    );
    expect(given).toEqual({ note: 'kept', value: 1, extra: null });
  });
});

describe("a run's folder, shared with its model server", () => {
  const folders = new SharedFolders();
  let server: Server;
  let base = '';
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (!folders.answer(req, res)) res.writeHead(418).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(() => closeServer(server));

  it('serves its files at unguessable addresses while shared, and nothing else, nor after', async () => {
    const folder = path.join(root, 'shared');
    rmSync(folder, { recursive: true, force: true });
    mkdirSync(folder);
    writeFileSync(path.join(folder, 'audio clip.flac'), 'sound');
    writeFileSync(path.join(root, 'secret.txt'), 'not shared');
    const shared = folders.share(folder, base);
    const url = shared.urlOf(path.join(folder, 'audio clip.flac'));
    expect(url).toMatch(new RegExp(`^${base}/inputs/[0-9a-f]{32}/audio%20clip\\.flac$`));
    const fetched = await fetch(url);
    expect(fetched.status).toBe(200);
    expect(await fetched.text()).toBe('sound');
    const name = /\/inputs\/([0-9a-f]{32})\//.exec(url)?.[1] ?? '';
    for (const wrong of [
      `${base}/inputs/${name}/missing.flac`,
      `${base}/inputs/${name}/..%2Fsecret.txt`,
      `${base}/inputs/${'0'.repeat(32)}/audio%20clip.flac`,
    ])
      expect((await fetch(wrong)).status, wrong).toBe(404);
    expect((await fetch(`${base}/runs/x`)).status).toBe(418);
    expect(() => shared.urlOf(path.join(root, 'secret.txt'))).toThrow(/not a file of the shared folder/);
    shared.close();
    expect((await fetch(url)).status).toBe(404);
  });
});
