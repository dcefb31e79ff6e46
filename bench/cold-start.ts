import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import type { BundleBreakdown } from './bundle-breakdown.ts';
import { largestBundle, type FunctionBundle, type LoadableBundle } from './bundles.ts';
import { median } from './stats.ts';

export interface ColdStart extends Loads {
  readonly entry: string;
  readonly bundleKiB: number;
  readonly memoryMiB: number;
  /**
   * Its fresh process less the SDK floor's, each run paired with a floor run just before it:
   * the median of the pairs' differences. Absent from reports written before 2026-12-06 (evening).
   */
  readonly aboveFloorMs?: number;
}

/** A bundle's loads in fresh processes, medians. */
export interface Loads {
  /** Median time to import the bundle (its module code and init) in a fresh Node process. */
  readonly loadInitMs: number;
  /** Median of the whole fresh process, spawn to exit. */
  readonly processMs: number;
}

export interface ColdStartReport {
  readonly runs: number;
  /** The same fresh process importing nothing: Node's own start, the floor of every figure. */
  readonly bareNodeMs: number;
  /**
   * What every function pays before its own code: the module that makes its DynamoDB client
   * (bundles.ts SDK_FLOOR_ENTRY), bundled and loaded as a function is. Its runs alternate with the
   * bare process's. Absent from reports written before it was recorded.
   */
  readonly sdkFloor?: { readonly entry: string; readonly bundleKiB: number; readonly bareNodeMs: number } & Loads;
  /**
   * The cuts under the floor (bundles.ts FLOOR_WAYS), each way's runs interleaved with the others'
   * and a bare process's. Absent from reports written before 2026-12-06.
   */
  readonly floorWays?: readonly ({
    readonly what: string;
    readonly bundleKiB: number;
    readonly bareNodeMs: number;
  } & Loads)[];
  readonly functions: readonly ColdStart[];
  /** What weighs in the largest bundle; absent from reports written before it was recorded. */
  readonly largestBundle?: { readonly entry: string; readonly breakdown: BundleBreakdown };
}

// The globals the Lambda Node.js runtime gives response-streaming handlers, before any import.
const LAMBDA_GLOBALS =
  'globalThis.awslambda = { ...globalThis.awslambda, streamifyResponse: (f) => f, HttpResponseStream: { from: (s) => s } };';

// Prints how long the import took, measured inside the fresh process.
const probe = (file: string | null) =>
  file === null
    ? 'console.log(JSON.stringify({ ms: 0 }))'
    : `${LAMBDA_GLOBALS} const t = performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); console.log(JSON.stringify({ ms: performance.now() - t }));`;

const runOnce = (
  file: string | null,
  environment: Record<string, string>,
): Promise<{ loadInitMs: number; processMs: number }> =>
  new Promise((resolve, reject) => {
    const started = performance.now();
    // As Lambda starts it: the function's environment, with its NODE_OPTIONS (source maps).
    const child = spawn(process.execPath, ['--input-type=module', '-e', probe(file)], {
      env: {
        PATH: process.env.PATH ?? '',
        AWS_REGION: 'eu-central-1',
        AWS_ACCESS_KEY_ID: 'bench',
        AWS_SECRET_ACCESS_KEY: 'bench',
        ...environment,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('exit', (code) => {
      const processMs = performance.now() - started;
      if (code !== 0) return reject(new Error(`loading ${file ?? 'nothing'} failed (${String(code)}): ${err.trim()}`));
      resolve({ loadInitMs: (JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as { ms: number }).ms, processMs });
    });
  });

const loadsOf = (samples: readonly { loadInitMs: number; processMs: number }[]): Loads => ({
  loadInitMs: median(samples.map((s) => s.loadInitMs)),
  processMs: median(samples.map((s) => s.processMs)),
});

/** Section 4: the SDK's floor against bare Node, then per function, bundle size and the median of `runs` fresh loads. */
export const measureColdStarts = async (
  bundles: readonly FunctionBundle[],
  floor: LoadableBundle,
  runs: number,
  floorWays: readonly (LoadableBundle & { readonly what: string })[] = [],
): Promise<ColdStartReport> => {
  const waysBare: number[] = [];
  const waysSamples = floorWays.map(() => [] as { loadInitMs: number; processMs: number }[]);
  for (let i = 0; i < runs; i++) {
    waysBare.push((await runOnce(null, {})).processMs);
    for (const [k, way] of floorWays.entries()) waysSamples[k]?.push(await runOnce(way.file, way.environment));
  }
  const bare: number[] = [];
  const floorBare: number[] = [];
  const floorSamples: { loadInitMs: number; processMs: number }[] = [];
  for (let i = 0; i < runs; i++) {
    floorBare.push((await runOnce(null, {})).processMs);
    floorSamples.push(await runOnce(floor.file, floor.environment));
  }
  for (let i = 0; i < runs; i++) bare.push((await runOnce(null, {})).processMs);
  // Round by round, every function once in each: a busy spell of the host falls on all of them
  // alike, not on the few measured during it.
  const measured = bundles.map((bundle) => ({
    bundle,
    samples: [] as { loadInitMs: number; processMs: number }[],
    differences: [] as number[],
  }));
  for (let i = 0; i < runs; i++) {
    for (const { bundle, samples, differences } of measured) {
      const before = await runOnce(floor.file, floor.environment);
      const sample = await runOnce(bundle.file, bundle.environment);
      samples.push(sample);
      differences.push(sample.processMs - before.processMs);
    }
  }
  const functions: ColdStart[] = measured.map(({ bundle, samples, differences }) => ({
    entry: bundle.entry,
    bundleKiB: bundle.bytes / 1024,
    memoryMiB: bundle.memoryMiB,
    ...loadsOf(samples),
    aboveFloorMs: median(differences),
  }));
  const largest = largestBundle(bundles);
  return {
    runs,
    bareNodeMs: median(bare),
    sdkFloor: {
      entry: floor.entry,
      bundleKiB: floor.bytes / 1024,
      bareNodeMs: median(floorBare),
      ...loadsOf(floorSamples),
    },
    ...(floorWays.length === 0
      ? {}
      : {
          floorWays: floorWays.map((way, k) => ({
            what: way.what,
            bundleKiB: way.bytes / 1024,
            bareNodeMs: median(waysBare),
            ...loadsOf(waysSamples[k] ?? []),
          })),
        }),
    functions,
    ...(largest === undefined ? {} : { largestBundle: { entry: largest.entry, breakdown: largest.breakdown } }),
  };
};
