import { build, type BuildOptions } from 'esbuild';
import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { bundleBreakdown, type BundleBreakdown } from './bundle-breakdown.ts';
import { FUNCTION_BASE_ENVIRONMENT, LAMBDA_BUNDLING, REPO_ROOT } from '../infra/constructs/prognoz-function.ts';
import { metadataOf, resolveIntrinsics, resourcesOfType, type CfnTemplate } from '../local/template.ts';
import { synthesizeTemplate } from '../local/synthesize.ts';

/** A bundle a fresh process can import as Lambda would: its file, with the environment it runs in. */
export type LoadableBundle = Pick<FunctionBundle, 'entry' | 'file' | 'bytes' | 'environment'>;

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

/** esbuild's options for one entry as the CDK app bundles a Lambda (ESM, minified, source maps read at a stack's first writing, AWS SDK v3 bundled with environment credentials). */
const buildOptionsOf = (entry: string, way: Partial<FloorWay> = {}): BuildOptions & { metafile: true } => ({
  absWorkingDir: REPO_ROOT,
  entryPoints: [path.join(REPO_ROOT, entry)],
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: LAMBDA_BUNDLING.target,
  minify: LAMBDA_BUNDLING.minify,
  sourcemap: true,
  sourcesContent: LAMBDA_BUNDLING.sourcesContent,
  external: [...(way.external ?? LAMBDA_BUNDLING.externalModules)],
  mainFields: [...LAMBDA_BUNDLING.mainFields],
  alias: way.alias ?? LAMBDA_BUNDLING.alias,
  banner: { js: LAMBDA_BUNDLING.banner },
  inject: [...(way.inject ?? LAMBDA_BUNDLING.inject)],
  logLevel: 'error',
  metafile: true,
});

/** One entry bundled exactly as the CDK app bundles a Lambda, with its source map beside it. */
export const bundleEntry = async (entry: string, outDir: string, way: Partial<FloorWay> = {}) => {
  const file = path.join(outDir, `${way.name ?? ''}${entry.replaceAll('/', '_').replace(/\.ts$/, '')}.mjs`);
  const { metafile } = await build({ ...buildOptionsOf(entry, way), outfile: file });
  return { file, bytes: statSync(file).size, breakdown: bundleBreakdown(metafile) };
};

/**
 * The files whose code one entry's bundle holds, bundled as deployed; nothing is written. Ours are
 * named from the repository's root, a package's from its `node_modules/` on, wherever that folder
 * lies (a clone may link it in from elsewhere).
 */
export const bundledFiles = async (entry: string): Promise<string[]> => {
  const { metafile } = await build({ ...buildOptionsOf(entry), outfile: 'bundle.mjs', write: false });
  return Object.values(metafile.outputs).flatMap((output) =>
    Object.entries(output.inputs)
      .filter(([, input]) => input.bytesInOutput > 0)
      .map(([file]) => file.slice(Math.max(0, file.lastIndexOf('node_modules/')))),
  );
};

/**
 * Bundles every Lambda as the CDK app does into `outDir`, which must lie inside the repository so
 * that the SDK resolves from node_modules as it does from the Lambda runtime.
 */
export const bundleFunctions = async (outDir: string, template?: CfnTemplate): Promise<FunctionBundle[]> => {
  mkdirSync(outDir, { recursive: true });
  const bundles: FunctionBundle[] = [];
  for (const fn of lambdaFunctions(template)) bundles.push({ ...fn, ...(await bundleEntry(fn.entry, outDir)) });
  return bundles;
};

/** What every function loads as it starts, and nothing else: the module that makes its DynamoDB client. */
export const SDK_FLOOR_ENTRY = 'shared/adapters/aws-clients.ts';

/**
 * The floor under every function's cold start: SDK_FLOOR_ENTRY bundled as a function is, with the
 * environment every function starts with.
 */
export const bundleSdkFloor = async (outDir: string): Promise<LoadableBundle> => {
  mkdirSync(outDir, { recursive: true });
  const { file, bytes } = await bundleEntry(SDK_FLOOR_ENTRY, outDir);
  return { entry: SDK_FLOOR_ENTRY, file, bytes, environment: { ...FUNCTION_BASE_ENVIRONMENT } };
};

/** One way of bundling the SDK's floor: what it leaves to the runtime, what it replaces, how stacks are mapped. */
export interface FloorWay {
  readonly name: string;
  readonly what: string;
  readonly external: readonly string[];
  readonly alias: Readonly<Record<string, string>>;
  /** What every bundle starts with: LAMBDA_BUNDLING.inject, or nothing. */
  readonly inject: readonly string[];
  /** Loaded with NODE_OPTIONS=--enable-source-maps: Node parses the source map as the bundle loads. */
  readonly sourceMapsAtLoad?: true;
}

/**
 * The cuts under the SDK's floor, each measured against the way before it (bench §4): the SDK left
 * to the runtime, as functions were bundled until 2026-12-06; the DynamoDB client bundled from its
 * ES modules with the whole default credential chain; with the environment's credentials in the
 * chain's place, its source map parsed at load (as deployed until 2026-12-07); and as deployed,
 * the map read when a stack is first written (LAMBDA_BUNDLING).
 */
export const FLOOR_WAYS: readonly FloorWay[] = [
  {
    name: 'runtime-sdk',
    what: 'AWS SDK left to the runtime',
    external: ['@aws-sdk/*'],
    alias: {},
    inject: [],
    sourceMapsAtLoad: true,
  },
  {
    name: 'bundled-chain',
    what: 'DynamoDB client bundled, default credential chain',
    external: LAMBDA_BUNDLING.externalModules,
    alias: {},
    inject: [],
    sourceMapsAtLoad: true,
  },
  {
    name: 'maps-at-load',
    what: "DynamoDB client bundled, the environment's credentials, `--enable-source-maps`",
    external: LAMBDA_BUNDLING.externalModules,
    alias: LAMBDA_BUNDLING.alias,
    inject: [],
    sourceMapsAtLoad: true,
  },
  {
    name: 'deployed',
    what: 'the same, stacks mapped at their first writing (as deployed)',
    external: LAMBDA_BUNDLING.externalModules,
    alias: LAMBDA_BUNDLING.alias,
    inject: LAMBDA_BUNDLING.inject,
  },
];

/** The SDK's floor bundled each of FLOOR_WAYS. */
export const bundleFloorWays = async (outDir: string): Promise<(LoadableBundle & { readonly what: string })[]> => {
  mkdirSync(outDir, { recursive: true });
  const bundled = [];
  for (const way of FLOOR_WAYS) {
    const { file, bytes } = await bundleEntry(SDK_FLOOR_ENTRY, outDir, way);
    bundled.push({
      entry: SDK_FLOOR_ENTRY,
      what: way.what,
      file,
      bytes,
      environment: {
        ...FUNCTION_BASE_ENVIRONMENT,
        ...(way.sourceMapsAtLoad ? { NODE_OPTIONS: '--enable-source-maps' } : {}),
      },
    });
  }
  return bundled;
};

/** The largest of `bundles`: the one whose breakdown the bench and `npm run bundle-sizes` print. */
export const largestBundle = <B extends Pick<FunctionBundle, 'bytes'>>(bundles: readonly B[]): B | undefined =>
  bundles.reduce<B | undefined>(
    (largest, bundle) => (largest === undefined || bundle.bytes > largest.bytes ? bundle : largest),
    undefined,
  );
