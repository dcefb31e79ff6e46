import { afterAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { bundledFiles, bundleEntry, lambdaFunctions } from '../../bench/bundles.ts';
import { FUNCTION_BASE_ENVIRONMENT, REPO_ROOT } from '../../infra/constructs/prognoz-function.ts';

const run = promisify(execFile);
const FIXTURE = 'test/fixtures/lambda/throws.ts';
const SOURCE = path.join(REPO_ROOT, FIXTURE);

/**
 * The stack of the fixture's error, as a fresh Node process with a function's environment writes
 * it. `beforeTheError` runs after the bundle is imported and before its handler throws.
 */
const stackOf = async (bundle: string, beforeTheError = ''): Promise<string> => {
  const script = `
    import { renameSync } from 'node:fs';
    const { handler } = await import(${JSON.stringify(pathToFileURL(bundle).href)});
    ${beforeTheError}
    try { await handler('shouting'); } catch (error) { console.log(error.stack); }`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
    env: { PATH: process.env.PATH ?? '', ...FUNCTION_BASE_ENVIRONMENT },
  });
  return stdout;
};

describe("a Lambda's error stacks", () => {
  // Inside the repository, as the CDK app's bundling folders are: the map names sources from there.
  const artifacts = path.join(REPO_ROOT, 'test', '.artifacts');
  mkdirSync(artifacts, { recursive: true });
  const outDir = mkdtempSync(path.join(artifacts, 'stacks-'));
  const bundled = bundleEntry(FIXTURE, outDir);
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it('name the TypeScript source, its line and column, and the function as written, where the bundle is minified', async () => {
    const { file } = await bundled;
    const frames = (await stackOf(file)).trim().split('\n');
    expect(frames[0]).toBe('Error: refused: shouting');
    expect(frames[1]).toBe(`    at refuseTheInput (${SOURCE}:3:9)`);
    expect(frames[2]).toMatch(new RegExp(`^ {4}at readTheInput \\(${SOURCE}:6:\\d+\\)$`));
  });

  it('read the source map only when a stack is first written, not as the bundle loads', async () => {
    const { file } = await bundled;
    const map = `${file}.map`;
    const away = `${file}.away`;
    try {
      // The map is away while the bundle loads, and back before the error: its frames are mapped.
      renameSync(map, away);
      const stack = await stackOf(file, `renameSync(${JSON.stringify(away)}, ${JSON.stringify(map)});`);
      expect(stack).toContain(`at refuseTheInput (${SOURCE}:3:9)`);
      // Without any map, the bundle's own frames are written as they are.
      renameSync(map, away);
      expect(await stackOf(file)).toMatch(/^ {4}at .+\.mjs:\d+:\d+\)?$/m);
    } finally {
      if (existsSync(away)) renameSync(away, map);
    }
  });

  it('are mapped in every function: each bundle starts with the mapping, and no function parses its map at its start', async () => {
    for (const { entry, environment } of lambdaFunctions()) {
      expect(await bundledFiles(entry), entry).toContain('functions/mapped-stack-traces.ts');
      expect(environment.NODE_OPTIONS ?? '', entry).not.toContain('--enable-source-maps');
    }
  }, 120_000);
});
