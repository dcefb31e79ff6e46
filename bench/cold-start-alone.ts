/**
 * `npm run bench:cold [-- runs]`: the Lambda cold start section of the bench alone
 * (bench/cold-start.ts): every function and the SDK's floor bundled as the CDK app bundles them,
 * then loaded in fresh processes. Prints the section as the report renders it.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../local/paths.ts';
import { bundleFloorWays, bundleFunctions, bundleSdkFloor } from './bundles.ts';
import { measureColdStarts } from './cold-start.ts';
import { renderColdStarts } from './report.ts';

const runs = Number(process.argv[2] ?? 10);
const out = path.join(REPO_ROOT, 'bench', '.bundles');
try {
  const bundles = await bundleFunctions(out);
  const floor = await bundleSdkFloor(out);
  const ways = await bundleFloorWays(out);
  console.log(renderColdStarts(await measureColdStarts(bundles, floor, runs, ways), process.version).join('\n'));
} finally {
  rmSync(out, { recursive: true, force: true });
}
