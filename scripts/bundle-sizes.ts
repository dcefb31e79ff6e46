/**
 * `npm run bundle-sizes`: bundles every Lambda exactly as the CDK app does (esbuild, ESM,
 * minified, AWS SDK v3 left to the runtime) and prints each bundle's size.
 */
import { build } from 'esbuild';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LAMBDA_BUNDLING } from '../infra/constructs/prognoz-function.ts';
import { synthesizeTemplate, metadataOf, resourcesOfType } from '../local/template.ts';

const root = path.resolve(import.meta.dirname, '..');
const out = mkdtempSync(path.join(tmpdir(), 'prognoz-bundles-'));
const entries = resourcesOfType(synthesizeTemplate(), 'AWS::Lambda::Function').flatMap(([, fn]) => metadataOf(fn, 'entry') ?? []);
const rows: [string, number][] = [];
for (const entry of [...new Set(entries)].sort()) {
  const outfile = path.join(out, `${path.basename(entry, '.ts')}.mjs`);
  await build({
    entryPoints: [path.join(root, entry)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: LAMBDA_BUNDLING.target,
    minify: LAMBDA_BUNDLING.minify,
    external: [...LAMBDA_BUNDLING.externalModules],
    banner: { js: LAMBDA_BUNDLING.banner },
    logLevel: 'error',
  });
  rows.push([entry, statSync(outfile).size]);
}
rmSync(out, { recursive: true, force: true });
const width = Math.max(...rows.map(([entry]) => entry.length));
for (const [entry, bytes] of rows) console.log(`${entry.padEnd(width)}  ${(bytes / 1024).toFixed(1).padStart(8)} KiB`);
