/** What weighs in a Lambda bundle, from esbuild's metafile: the next person sees where its bytes come from. */
import type { Metafile } from 'esbuild';
import { isBuiltin } from 'node:module';
import { n, table } from './markdown.ts';

export interface BundleContributor {
  /** A package (`zod`, `@middy/core`) or one of our folders (`shared/adapters`). */
  readonly name: string;
  /** Bytes it leaves in the minified output. */
  readonly bytes: number;
}

export interface BundleBreakdown {
  /** The bundle's own size (its source map apart). */
  readonly bytes: number;
  /** The largest contributors, largest first, by package or by our folder. */
  readonly groups: readonly BundleContributor[];
  /** The largest single inputs, largest first, by path. */
  readonly inputs: readonly BundleContributor[];
  /** Packages left to the runtime (the AWS SDK) that the bundle imports as it loads: its cold start pays them. */
  readonly externalAtLoad: readonly string[];
  /** Packages left to the runtime that it imports only when a request needs them. */
  readonly externalOnDemand: readonly string[];
}

const PACKAGE_IN_NODE_MODULES = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)/g;

/**
 * The package an input belongs to (the innermost one, for nested node_modules), else its folder
 * in this repository to two levels (`shared/api/openapi/x.ts` → `shared/api`), else the file itself.
 */
export const contributorOf = (input: string): string => {
  const packages = [...input.matchAll(PACKAGE_IN_NODE_MODULES)];
  const innermost = packages.at(-1)?.[1];
  if (innermost !== undefined) return innermost;
  const segments = input.split('/');
  return segments.length <= 1 ? input : segments.slice(0, Math.min(2, segments.length - 1)).join('/');
};

const largestFirst = (byName: ReadonlyMap<string, number>, top: number): BundleContributor[] =>
  [...byName]
    .map(([name, bytes]) => ({ name, bytes }))
    .sort((a, b) => b.bytes - a.bytes || a.name.localeCompare(b.name))
    .slice(0, top);

/** The breakdown of the one JavaScript output of `metafile` (a bundle of one entry point). */
export const bundleBreakdown = (metafile: Metafile, top = 10): BundleBreakdown => {
  const outputs = Object.entries(metafile.outputs).filter(([, output]) => output.entryPoint !== undefined);
  const [only, ...others] = outputs;
  if (only === undefined || others.length > 0)
    throw new Error(`expected the metafile of one bundle, found ${outputs.length} outputs with an entry point`);
  const [, output] = only;
  const byGroup = new Map<string, number>();
  const byInput = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
    const name = contributorOf(input);
    byGroup.set(name, (byGroup.get(name) ?? 0) + bytesInOutput);
    byInput.set(input, bytesInOutput);
  }
  const externals = (kind: string) =>
    [
      ...new Set(output.imports.filter((i) => i.external && i.kind === kind && !isBuiltin(i.path)).map((i) => i.path)),
    ].sort();
  return {
    bytes: output.bytes,
    groups: largestFirst(byGroup, top),
    inputs: largestFirst(byInput, top),
    externalAtLoad: externals('import-statement'),
    externalOnDemand: externals('dynamic-import'),
  };
};

const kib = (bytes: number) => n(bytes / 1024);
const share = (bytes: number, of: number) => `${n((100 * bytes) / of, 2)} %`;
const codes = (names: readonly string[]) => (names.length === 0 ? 'none' : names.map((x) => `\`${x}\``).join(', '));

/** The breakdown as Markdown: a table of the largest contributors, then the largest files and what loads beside it. */
export const renderBundleBreakdown = (entry: string, b: BundleBreakdown): string[] => [
  `What weighs in the largest bundle, \`${entry}\` (${kib(b.bytes)} KiB; esbuild's metafile, bytes each input leaves in the minified output):`,
  '',
  table(
    ['package or our folder', 'KiB', 'share'],
    b.groups.map((g) => [`\`${g.name}\``, kib(g.bytes), share(g.bytes, b.bytes)]),
  ),
  '',
  `Largest files: ${b.inputs.map((i) => `\`${i.name}\` (${kib(i.bytes)} KiB)`).join(', ')}.`,
  `Left to the runtime, loaded with the bundle: ${codes(b.externalAtLoad)}; loaded when a request needs it: ${codes(b.externalOnDemand)}.`,
];

/** The same, as plain lines for a terminal (`npm run bundle-sizes`). */
export const printableBundleBreakdown = (entry: string, b: BundleBreakdown): string[] => {
  const width = Math.max(...b.groups.map((g) => g.name.length), ...b.inputs.map((i) => i.name.length));
  const row = (c: BundleContributor) =>
    `  ${c.name.padEnd(width)}  ${(c.bytes / 1024).toFixed(1).padStart(8)} KiB  ${share(c.bytes, b.bytes).padStart(6)}`;
  return [
    `The largest bundle, ${entry} (${(b.bytes / 1024).toFixed(1)} KiB), by package or our folder:`,
    ...b.groups.map(row),
    'Its largest files:',
    ...b.inputs.map(row),
    `Loaded with it from the runtime: ${b.externalAtLoad.join(', ') || 'none'}`,
    `Loaded when a request needs it: ${b.externalOnDemand.join(', ') || 'none'}`,
  ];
};
