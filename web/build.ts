import { buildSync } from 'esbuild';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const WEB_DIR = import.meta.dirname;
const ENTRY = path.join(WEB_DIR, 'console', 'src', 'main.tsx');

export interface ConsoleFile {
  /** Its path under the build folder, which is its path on the site (`index.html`, `assets/…`). */
  readonly name: string;
  readonly contentType: string;
  /** Named by its content's hash: it may be cached for good. */
  readonly immutable: boolean;
}

export interface ConsoleBuild {
  readonly dir: string;
  readonly files: readonly ConsoleFile[];
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

const page = (script: string, style: string): string => `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>prognoz</title>
    <link rel="icon" href="data:," />
    <link rel="stylesheet" href="/${style}" />
    <script type="module" src="/${script}"></script>
  </head>
  <body>
    <noscript>The prognoz console needs JavaScript. The API is at <a href="/docs">/docs</a>.</noscript>
    <div id="app"></div>
  </body>
</html>
`;

/**
 * Builds the console (web/console) for production into `outDir`: one minified script and one
 * stylesheet named by their hashes, and the page that loads them. Synchronous, so the CDK app can
 * build it while it synthesizes; it takes esbuild a fraction of a second.
 */
export const buildConsole = (outDir: string): ConsoleBuild => {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const result = buildSync({
    entryPoints: { app: ENTRY },
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2022',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    outdir: outDir,
    entryNames: 'assets/[name]-[hash]',
    metafile: true,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const outputs = Object.keys(result.metafile.outputs).map((file) => path.relative(outDir, path.resolve(file)));
  const script = outputs.find((name) => name.endsWith('.js'));
  const style = outputs.find((name) => name.endsWith('.css'));
  if (!script || !style)
    throw new Error(`the console build made ${outputs.join(', ')}: a script and a stylesheet were expected`);
  writeFileSync(path.join(outDir, 'index.html'), page(script, style));
  const files = ['index.html', ...outputs].map((name) => ({
    name,
    contentType: CONTENT_TYPES[path.extname(name)] ?? 'application/octet-stream',
    immutable: name !== 'index.html',
  }));
  return { dir: outDir, files };
};
