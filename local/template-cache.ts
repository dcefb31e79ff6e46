/**
 * Templates the local runtime synthesized before, kept by what they were made from: every start
 * synthesizes the same app (the CDK loaded in a process of its own, ~15 s of CPU) unless its code,
 * its catalog or the environment that shapes it changed. The suite starts a dozen runtimes.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CfnTemplate } from './cfn-template.ts';
import { REPO_ROOT } from './paths.ts';
import { EXTRA_CATALOG_ENV, WITHHELD_MODELS_ENV } from '../shared/config/model-catalog.ts';

/** What the synthesized app is made of: its code, the catalog's files, the CDK's version. */
const SOURCES = ['infra', 'shared', 'local', 'models', 'cdk.json', 'package-lock.json'];
/** Folders under SOURCES that the app never reads. */
const SKIPPED = new Set(['node_modules', '__pycache__', 'tests', 'dynamodb', '.pytest_cache']);
/** The templates kept: one per recent state of the sources and environment. */
const KEPT = 8;
const CACHE_DIR = path.join(REPO_ROOT, '.prognoz', 'templates');

const filesUnder = (entry: string): string[] => {
  const full = path.join(REPO_ROOT, entry);
  const stat = statSync(full, { throwIfNoEntry: false });
  if (!stat) return [];
  if (stat.isFile()) return [entry];
  return readdirSync(full, { withFileTypes: true })
    .filter((child) => !SKIPPED.has(child.name) && !child.name.startsWith('.'))
    .flatMap((child) => (child.isDirectory() || child.isFile() ? filesUnder(path.join(entry, child.name)) : []))
    .sort();
};

/**
 * The key of the template the app synthesizes with `env`: every file it may read, and what of
 * the environment shapes it — the app reads only its catalog's (loadModelCatalog: the file
 * PROGNOZ_MODEL_CATALOG names, by its content, and the withheld models) and the CDK's (CDK_*).
 * Any change, and the app is synthesized again.
 */
export const templateKey = (env: NodeJS.ProcessEnv): string => {
  const hash = createHash('sha256');
  for (const file of SOURCES.flatMap(filesUnder))
    hash
      .update(`${file}\0`)
      .update(readFileSync(path.join(REPO_ROOT, file)))
      .update('\0');
  const shaping = Object.entries(env)
    .filter(([name]) => name === WITHHELD_MODELS_ENV || name.startsWith('CDK_'))
    .sort(([a], [b]) => a.localeCompare(b));
  for (const [name, value] of shaping) hash.update(`${name}=${value ?? ''}\0`);
  const catalog = env[EXTRA_CATALOG_ENV];
  if (catalog) hash.update(statSync(catalog, { throwIfNoEntry: false }) ? readFileSync(catalog) : 'absent');
  return hash.digest('hex');
};

/** The template kept under `key`, or null. */
export const keptTemplate = (key: string): CfnTemplate | null => {
  try {
    return JSON.parse(readFileSync(path.join(CACHE_DIR, `${key}.json`), 'utf8')) as CfnTemplate;
  } catch {
    return null;
  }
};

/** Keeps `template` under `key` (whole or not at all), and only the latest KEPT. */
export const keepTemplate = (key: string, template: CfnTemplate): void => {
  mkdirSync(CACHE_DIR, { recursive: true });
  const file = path.join(CACHE_DIR, `${key}.json`);
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, JSON.stringify(template));
  renameSync(partial, file);
  const kept = readdirSync(CACHE_DIR)
    .filter((name) => name.endsWith('.json'))
    .map((name) => ({ name, at: statSync(path.join(CACHE_DIR, name)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  for (const old of kept.slice(KEPT)) rmSync(path.join(CACHE_DIR, old.name), { force: true });
};
