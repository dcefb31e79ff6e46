import { build } from 'esbuild';
import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { bundleBreakdown, type BundleBreakdown } from './bundle-breakdown.ts';
import { LAMBDA_BUNDLING, REPO_ROOT } from '../infra/constructs/prognoz-function.ts';
import { metadataOf, resolveIntrinsics, resourcesOfType, type CfnTemplate } from '../local/template.ts';
import { synthesizeTemplate } from '../local/synthesize.ts';

export interface FunctionBundle {
  /** The handler's source file, as the template names it. */
  readonly entry: string;
  readonly file: string;
  readonly bytes: number;
  readonly memoryMiB: number;
  /** The function's environment as deployed, its references to resources given stand-in names. */
  readonly environment: Record<string, string>;
  /** What weighs in it, from esbuild's metafile. */
  readonly breakdown: BundleBreakdown;
}

const standInNames = {
  ref: (logicalId: string) => `prognoz-${logicalId}`,
  getAtt: (logicalId: string, attribute: string) => `prognoz-${logicalId}-${attribute}`,
};

/** Each Lambda of the template once (by entry), with its memory and environment. */
export const lambdaFunctions = (template: CfnTemplate = synthesizeTemplate()) => {
  const byEntry = new Map<string, { entry: string; memoryMiB: number; environment: Record<string, string> }>();
  for (const [, fn] of resourcesOfType(template, 'AWS::Lambda::Function')) {
    const entry = metadataOf(fn, 'entry');
    if (!entry || byEntry.has(entry)) continue;
    const variables =
      (fn.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
    byEntry.set(entry, {
      entry,
      memoryMiB: Number(fn.Properties?.MemorySize ?? 128),
      environment: Object.fromEntries(
        Object.entries(variables).map(([name, value]) => [name, String(resolveIntrinsics(value, standInNames))]),
      ),
    });
  }
  return [...byEntry.values()].sort((a, b) => a.entry.localeCompare(b.entry));
};

/**
 * Bundles every Lambda exactly as the CDK app does (esbuild, ESM, minified, source maps, AWS SDK
 * v3 left to the runtime) into `outDir`, which must lie inside the repository so that the SDK
 * resolves from node_modules as it does from the Lambda runtime.
 */
export const bundleFunctions = async (outDir: string, template?: CfnTemplate): Promise<FunctionBundle[]> => {
  mkdirSync(outDir, { recursive: true });
  const bundles: FunctionBundle[] = [];
  for (const fn of lambdaFunctions(template)) {
    const file = path.join(outDir, `${fn.entry.replaceAll('/', '_').replace(/\.ts$/, '')}.mjs`);
    const { metafile } = await build({
      absWorkingDir: REPO_ROOT,
      entryPoints: [path.join(REPO_ROOT, fn.entry)],
      outfile: file,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: LAMBDA_BUNDLING.target,
      minify: LAMBDA_BUNDLING.minify,
      sourcemap: true,
      sourcesContent: LAMBDA_BUNDLING.sourcesContent,
      external: [...LAMBDA_BUNDLING.externalModules],
      banner: { js: LAMBDA_BUNDLING.banner },
      logLevel: 'error',
      metafile: true,
    });
    bundles.push({ ...fn, file, bytes: statSync(file).size, breakdown: bundleBreakdown(metafile) });
  }
  return bundles;
};

/** The largest of `bundles`: the one whose breakdown the bench and `npm run bundle-sizes` print. */
export const largestBundle = <B extends Pick<FunctionBundle, 'bytes'>>(bundles: readonly B[]): B | undefined =>
  bundles.reduce<B | undefined>(
    (largest, bundle) => (largest === undefined || bundle.bytes > largest.bytes ? bundle : largest),
    undefined,
  );
