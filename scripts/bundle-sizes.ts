/** `npm run bundle-sizes`: every Lambda bundled as the CDK app bundles it, with its size. */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { bundleFunctions } from '../bench/bundles.ts';

const out = path.resolve(import.meta.dirname, '..', 'bench', '.bundles');
const bundles = await bundleFunctions(out);
rmSync(out, { recursive: true, force: true });
const width = Math.max(...bundles.map(({ entry }) => entry.length));
for (const { entry, bytes } of bundles)
  console.log(`${entry.padEnd(width)}  ${(bytes / 1024).toFixed(1).padStart(8)} KiB`);
