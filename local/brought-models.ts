import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { COG_KEYS, CogConfigError, predictKeyOf, type CogFile, type CogIssue } from '../shared/catalog/cog-config.ts';
import { readCogFile } from '../shared/adapters/cog-files.ts';
import { contractOf } from '../shared/catalog/cog-schema.ts';
import { LOCAL_MODEL_DEFAULTS, manifestEntry, type Catalog } from '../shared/catalog/manifest.ts';
import { modelId } from '../shared/catalog/model-id.ts';
import { checkedRepositoryCatalog } from '../shared/config/model-catalog.ts';
import { deriveModel, ensureEnvironment, PredictorLoadError } from './model-env.ts';
import { readyMachineFor } from './model-machine.ts';

/**
 * `acme/wordcount=/path/to/folder`, then any of `,price=0.02` (roubles per second) and
 * `,collection=slug` (a collection of the manifest it joins; once per collection).
 */
export interface BroughtModel {
  readonly id: string;
  readonly folder: string;
  readonly pricePerSecond: string;
  readonly collections: readonly string[];
}

const FLAG_OPTIONS = /,(price|collection)=([^,]*)$/;

export const parseModelFlag = (flag: string, cwd = process.cwd()): BroughtModel => {
  const equals = flag.indexOf('=');
  if (equals <= 0)
    throw new Error(
      `--model ${flag}: expected {company}/{model}=<predictor folder>[,price=<roubles per second>][,collection=<slug>]`,
    );
  const id = flag.slice(0, equals);
  let folder = flag.slice(equals + 1);
  let pricePerSecond = LOCAL_MODEL_DEFAULTS.pricePerSecond;
  const collections: string[] = [];
  // The options are read from the end: a folder's name may hold a comma.
  for (let option = FLAG_OPTIONS.exec(folder); option; option = FLAG_OPTIONS.exec(folder)) {
    const [, name, value = ''] = option;
    if (name === 'price') pricePerSecond = value;
    else collections.unshift(value);
    folder = folder.slice(0, option.index);
  }
  const checked = modelId.safeParse(id);
  if (!checked.success) throw new Error(`--model ${flag}: ${checked.error.issues[0]?.message ?? 'is not valid'}`);
  const priced = manifestEntry.shape.pricePerSecond.safeParse(pricePerSecond);
  if (!priced.success)
    throw new Error(`--model ${flag}: the price ${priced.error.issues[0]?.message ?? 'is not valid'}`);
  const declared = (checkedRepositoryCatalog().collections ?? []).map((collection) => collection.slug);
  for (const slug of collections)
    if (!declared.includes(slug))
      throw new Error(
        `--model ${flag}: there is no collection ${slug || '(empty)'} in models/manifest.json (it has: ${declared.join(', ') || 'none'})`,
      );
  return { id, folder: path.resolve(cwd, folder), pricePerSecond, collections };
};

/**
 * A predictor that does not load, told at the `run` (or `predict`) line with Python's last word on it; or at
 * `concurrency.max`, when what describe.py refused is concurrency for a predictor that is not async.
 */
const predictorIssue = (cog: CogFile, reason: string): CogIssue =>
  /\bconcurrency\.max\b/.test(reason)
    ? cog.issue(COG_KEYS.concurrency, reason)
    : cog.issue(predictKeyOf(cog.config), `the predictor does not load: ${reason}`);

export interface PreparedModels {
  /** A catalog file of the brought models (for the registry of every process), or null when none. */
  readonly catalogFile: string | null;
  /** The Python interpreter of each brought model's own environment. */
  readonly pythonOf: ReadonlyMap<string, string>;
}

/**
 * Readies models brought to a local run: what each predictor's cog.yaml asks of the machine
 * checked (a CogConfigError names the lines the machine cannot meet), its environment built from it,
 * its schemas derived from its signature, and all of it written as a catalog that the registry
 * of every part of the runtime (API handlers, workers, the synthesized template) reads beside
 * the manifest.
 */
export const prepareBroughtModels = async (
  models: readonly BroughtModel[],
  log: (line: string) => void,
): Promise<PreparedModels> => {
  if (models.length === 0) return { catalogFile: null, pythonOf: new Map() };
  const catalog: Catalog = { models: [], derived: {}, joins: [] };
  const pythonOf = new Map<string, string>();
  for (const model of models) {
    const cog = readCogFile(model.folder);
    const { config } = cog;
    const python = await ensureEnvironment(cog, await readyMachineFor(cog, log), log);
    const derived = await deriveModel(python, model.folder, config).catch((error: unknown) => {
      throw error instanceof PredictorLoadError ? new CogConfigError([predictorIssue(cog, error.reason)]) : error;
    });
    try {
      // What every process of the runtime will make of it: a type prognoz does not serve is told here, once.
      contractOf(derived, model.id);
    } catch (error) {
      throw new CogConfigError([
        cog.issue(predictKeyOf(config), error instanceof Error ? error.message : String(error)),
      ]);
    }
    catalog.derived[model.id] = derived;
    catalog.models.push({
      ...LOCAL_MODEL_DEFAULTS,
      id: model.id,
      description: `The Cog predictor in ${model.folder}`,
      predictor: model.folder,
      pricePerSecond: model.pricePerSecond,
      fleet: {
        ...LOCAL_MODEL_DEFAULTS.fleet,
        gpus: config.gpu ? 1 : 0,
        instanceType: config.gpu ? 'g5.xlarge' : 'c7i.large',
        // A task takes concurrency.max jobs at once before the fleet needs another.
        backlogPerTask: Math.max(LOCAL_MODEL_DEFAULTS.fleet.backlogPerTask, config.concurrency),
      },
    });
    for (const collection of model.collections) catalog.joins?.push({ collection, model: model.id });
    pythonOf.set(model.id, python);
    log(`${model.id}: the Cog predictor in ${model.folder}, ${model.pricePerSecond} ₽ per second`);
  }
  const catalogFile = path.join(mkdtempSync(path.join(tmpdir(), 'prognoz-catalog-')), 'catalog.json');
  writeFileSync(catalogFile, JSON.stringify(catalog));
  return { catalogFile, pythonOf };
};
