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
    expect(document.openapi).toBe('3.1.0');
    expect(document.servers).toEqual([{ url: runtime().apiUrl.replace(/\/$/, '') }]);
    // The suites' runtime serves the test catalog's models beside the repository's; turbo is withheld (no weights).
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/prognoz/echo', '/openai/whisper-base', '/acme/wordcount', '/predictions/{id}']));
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
    expect(scripts.map((script) => /src="([^"]+)"/.exec(script[1] ?? '')?.[1])).toEqual(['docs/scalar.js', 'docs/reference.js']);
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
