/** `npm run bundle-sizes`: every Lambda bundled as the CDK app bundles it, with its size, then what weighs in the largest. */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { printableBundleBreakdown } from '../bench/bundle-breakdown.ts';
import { bundleFunctions, largestBundle } from '../bench/bundles.ts';

const out = path.resolve(import.meta.dirname, '..', 'bench', '.bundles');
const bundles = await bundleFunctions(out);
rmSync(out, { recursive: true, force: true });
const width = Math.max(...bundles.map(({ entry }) => entry.length));
for (const { entry, bytes } of bundles)
  console.log(`${entry.padEnd(width)}  ${(bytes / 1024).toFixed(1).padStart(8)} KiB`);
const largest = largestBundle(bundles);
if (largest) console.log(['', ...printableBundleBreakdown(largest.entry, largest.breakdown)].join('\n'));
