import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runtime } from '../support/api.ts';

const origin = () => new URL(runtime().apiUrl).origin;

interface Served {
  openapi: string;
  servers: { url: string }[];
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, unknown> };
}

describe('GET /api/v1/openapi.json', () => {
  it('serves the document without a token, naming this runtime and its models, brought ones included', async () => {
    const response = await fetch(`${runtime().apiUrl}openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    const document = (await response.json()) as Served;
    expect(document.openapi).toBe('3.2.0');
    expect(document.servers).toEqual([{ url: runtime().apiUrl.replace(/\/$/, '') }]);
    // The suites' runtime serves the test catalog's models beside the repository's; turbo is withheld (no weights).
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/prognoz/echo', '/openai/whisper-base', '/acme/wordcount', '/predictions/{id}']),
    );
    expect(document.paths['/openai/whisper-large-v3-turbo']).toBeUndefined();
    expect(document.components.schemas.AcmeWordcountInput).toBeDefined();
  });
});

describe('the reference page at /docs', () => {
  it('is a page that loads the renderer and its starter from beside it, with no inline script', async () => {
    const page = await fetch(`${origin()}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.map((script) => /src="([^"]+)"/.exec(script[1] ?? '')?.[1])).toEqual([
      'docs/scalar.js',
      'docs/reference.js',
    ]);
    expect(scripts.every((script) => script[2]?.trim() === '')).toBe(true);
    for (const name of ['scalar.js', 'reference.js']) {
      const file = await fetch(new URL(`docs/${name}`, `${origin()}/docs`));
      expect(file.status, name).toBe(200);
      expect(file.headers.get('content-type')).toMatch(/^text\/javascript/);
      expect(file.headers.get('x-content-type-options')).toBe('nosniff');
    }
    // The starter finds the document the same way from /docs here and from /prod/docs on AWS.
    const starter = await (await fetch(`${origin()}/docs/reference.js`)).text();
    expect(starter).toContain("new URL('../api/v1/openapi.json', document.currentScript.src)");
  });

  it('has nothing else under /docs', async () => {
    const missing = await fetch(`${origin()}/docs/secret.txt`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('route_not_found');
  });
});

describe('a typed client generated from the document (the command docs/api.md gives)', () => {
  const ROOT = path.resolve(import.meta.dirname, '..', '..');
  const bin = (name: string) => path.join(ROOT, 'node_modules', '.bin', name);

  it('compiles against the API as documented, and creates a prediction through it', async () => {
    // Inside the repository, so that the client finds openapi-fetch in node_modules.
    const folder = path.join(ROOT, 'test', '.generated', randomUUID());
    mkdirSync(folder, { recursive: true });
    try {
      // A field with a default may be left out of a request: the generator must not make it required.
      await run(bin('openapi-typescript'), [
        `${runtime().apiUrl}openapi.json`,
        '--default-non-nullable',
        'false',
        '-o',
        path.join(folder, 'prognoz.d.ts'),
      ]);
      writeFileSync(
        path.join(folder, 'client.ts'),
        `import createClient from 'openapi-fetch';
import type { paths } from './prognoz.d.ts';

const client = createClient<paths>({ baseUrl: process.env.API_URL, headers: { Authorization: \`Bearer \${process.env.API_TOKEN ?? ''}\` } });
const { data, error } = await client.POST('/prognoz/echo', { body: { text: 'typed' }, params: { header: { Prefer: 'wait' } } });
if (error) throw new Error(JSON.stringify(error));
const status: 'pending' | 'starting' | 'queued' | 'processing' | 'succeeded' | 'failed' | 'canceled' = data.status;
// The model's input is typed: a number is no text.
// @ts-expect-error text is a string
void client.POST('/prognoz/echo', { body: { text: 1 } });
const listed = await client.GET('/predictions', { params: { query: { model: 'prognoz/echo' } } });
console.log(JSON.stringify({ status, output: data.output, listed: listed.data?.results.length ?? 0 }));
`,
      );
      await run(bin('tsc'), [
        '--ignoreConfig',
        '--noEmit',
        '--strict',
        '--types',
        'node',
        '--target',
        'es2023',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--skipLibCheck',
        '--allowImportingTsExtensions',
        path.join(folder, 'client.ts'),
      ]);
      const output = await run(process.execPath, ['--import', 'tsx', path.join(folder, 'client.ts')], {
        API_URL: runtime().apiUrl.replace(/\/$/, ''),
        API_TOKEN: runtime().apiToken,
      });
      expect(JSON.parse(output)).toMatchObject({ status: 'succeeded', output: { text: 'typed' } });
      expect((JSON.parse(output) as { listed: number }).listed).toBeGreaterThan(0);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 120_000);
});

const run = (command: string, args: readonly string[], env: Record<string, string> = {}): Promise<string> =>
  new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      { cwd: path.resolve(import.meta.dirname, '..', '..'), env: { ...process.env, ...env } },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${path.basename(command)} failed: ${stdout}${stderr}`));
        else resolve(stdout);
      },
    );
  });
