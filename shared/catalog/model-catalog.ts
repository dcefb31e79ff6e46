import manifestJson from '../../models/manifest.json' with { type: 'json' };
import derivedJson from '../../models/schemas.json' with { type: 'json' };
import type { PredictionPolicy } from '../domain/transition.ts';
import { contractOf } from './cog-schema.ts';
import {
  DEFAULT_QUEUE_SECONDS,
  phaseLimitsOf,
  policyOf,
  type ModelContract,
  type ModelDefinition,
} from './definition.ts';
import { derivedModel, type DerivedModel } from './derived-model.ts';
import type { Catalog, CollectionEntry, ManifestFile } from './manifest.ts';

/**
 * The models a process knows, and which of them it offers. Built once per process, where the
 * process starts (its composition root: shared/config/model-catalog.ts reads what it is built
 * from), and handed to what needs it, as a store or a clock is.
 */
export interface ModelCatalog {
  /** Every model of the catalog, offered by this run or withheld. */
  readonly all: readonly ModelDefinition[];
  /** Every model this deployment serves: the manifest's, then those a local run was given, less any withheld. */
  readonly offered: readonly ModelDefinition[];
  /** A model this deployment serves; undefined for an unknown or withheld one. */
  readonly find: (id: string) => ModelDefinition | undefined;
  /**
   * A model of the catalog, withheld or not; undefined for one the catalog has no more (a model
   * taken out of the manifest, or brought to an earlier local run and not to this one), whose
   * predictions still stored can only be ended (ENDINGS.withdrawn).
   */
  readonly catalogModel: (id: string) => ModelDefinition | undefined;
  /** A model of the catalog, withheld or not: a prediction made for it keeps its price and limits to its end. */
  readonly require: (id: string) => ModelDefinition;
  /** The policy a stored prediction moves on by: its model's, or a withdrawn model's. */
  readonly policyOfStored: (modelId: string) => PredictionPolicy;
  /** The manifest's collections, in its order, each with the offered models it holds. */
  readonly collections: readonly Collection[];
}

/** Models grouped by purpose: the manifest declares it, a local run's brought models may join it. */
export interface Collection {
  readonly slug: string;
  readonly name: string;
  readonly description: string;
  /** In the manifest's order, then the joined; only the models this run offers. */
  readonly models: readonly ModelDefinition[];
}

/** What a catalog is built from. */
export interface CatalogSources {
  /** The repository's catalog (`repositoryCatalog()`). */
  readonly repository: Catalog;
  /** A catalog beside it (a local run's `--model` flags write one), or null. */
  readonly extra?: Catalog | null;
  /** Ids of models of the catalog this run does not offer (the local runtime's, whose weights are absent). */
  readonly withheld?: Iterable<string>;
}

/**
 * The models of a catalog, each with its contract derived from its predictor. What comes of the
 * derived schemas (the zod schemas of its input and output, its files, secrets, run settings) is
 * built at its first read: a function that reads one model, or only prices and limits, never pays
 * for building every model's schemas at its cold start (bench §4).
 */
export const modelsOf = (source: Catalog): ModelDefinition[] =>
  source.models.map((entry) => {
    if (!Object.hasOwn(source.derived, entry.id))
      throw new Error(
        `model ${entry.id} has no derived schema: run \`npm run models\` to derive it from ${entry.predictor}`,
      );
    const derived = () => source.derived[entry.id] as DerivedModel;
    let contract: ModelContract | undefined;
    const contractPart = <K extends keyof ModelContract>(key: K) => ({
      enumerable: true,
      get: () => (contract ??= contractOf(derived(), entry.id))[key],
    });
    const base = { ...entry, fleet: { ...entry.fleet, maxTasksCap: entry.fleet.maxTasksCap ?? entry.fleet.maxTasks } };
    return Object.defineProperties(base, {
      input: contractPart('input'),
      output: contractPart('output'),
      files: contractPart('files'),
      secrets: contractPart('secrets'),
      nullWhenOmitted: contractPart('nullWhenOmitted'),
      streams: contractPart('streams'),
      predictor: { enumerable: true, get: () => ({ folder: entry.predictor, concurrency: derived().concurrency }) },
      versionCreatedAt: { enumerable: true, get: () => derived().derivedAt },
      readme: { enumerable: true, get: () => derived().readme ?? null },
    }) as unknown as ModelDefinition;
  });

/** Each entry of `raw` checked as a model's derived schemas when it is first read. */
const checkedOnRead = (raw: Readonly<Record<string, unknown>>): Record<string, DerivedModel> => {
  const checked: Record<string, DerivedModel> = {};
  for (const id of Object.keys(raw)) {
    let value: DerivedModel | undefined;
    Object.defineProperty(checked, id, { enumerable: true, get: () => (value ??= derivedModel.parse(raw[id])) });
  }
  return checked;
};

/** The repository's models/manifest.json as bundled, unchecked: `checkedRepositoryCatalog` checks it. */
export const REPOSITORY_MANIFEST: unknown = manifestJson;

/**
 * The repository's catalog: `manifest` (by default models/manifest.json as bundled, taken as
 * checked) and what `npm run models` derived (models/schemas.json), bundled; each model's derived
 * schemas are checked when first read. The manifest is checked where it comes in: `npm run
 * models`, the CDK app's synthesis, the local runtime's start (shared/config/model-catalog.ts); a
 * function bundled by that synthesis reads the file it checked, and builds no manifest schema at
 * its start (bench §4).
 */
export const repositoryCatalog = (manifest: ManifestFile = manifestJson): Catalog => ({
  models: manifest.models,
  derived: checkedOnRead(derivedJson),
  collections: manifest.collections ?? [],
});

/**
 * The collections of the repository's catalog, with the extra catalog's joins. A collection naming
 * a model the catalog lacks, a slug twice, or a join to no collection is refused: each is a slip
 * in a file someone edits.
 */
const collectionsOf = (
  repository: Catalog,
  extra: Catalog | null,
  byId: ReadonlyMap<string, ModelDefinition>,
  offered: (id: string) => ModelDefinition | undefined,
): Collection[] => {
  const declared: CollectionEntry[] = [...(repository.collections ?? []), ...(extra?.collections ?? [])];
  const members = new Map<string, string[]>();
  for (const entry of declared) {
    if (members.has(entry.slug)) throw new Error(`collection ${entry.slug} is declared twice`);
    const missing = entry.models.filter((id) => !byId.has(id));
    if (missing.length > 0)
      throw new Error(`collection ${entry.slug} names models the catalog lacks: ${missing.join(', ')}`);
    members.set(entry.slug, [...entry.models]);
  }
  for (const join of extra?.joins ?? []) {
    const models = members.get(join.collection);
    if (!models)
      throw new Error(
        `model ${join.model} joins collection ${join.collection}, which the manifest does not declare (it has: ${[...members.keys()].join(', ') || 'none'})`,
      );
    if (!byId.has(join.model))
      throw new Error(`collection ${join.collection} is joined by ${join.model}, which the catalog lacks`);
    if (!models.includes(join.model)) models.push(join.model);
  }
  return declared.map((entry) => ({
    slug: entry.slug,
    name: entry.name,
    description: entry.description,
    models: (members.get(entry.slug) ?? []).flatMap((id) => offered(id) ?? []),
  }));
};

/** A withdrawn model's: nothing is charged for it, and its phases have the default limits. */
const WITHDRAWN_POLICY: PredictionPolicy = {
  pricePerSecondMicro: 0n,
  limits: phaseLimitsOf({ timeouts: { runSeconds: DEFAULT_QUEUE_SECONDS, heartbeatSeconds: 10 } }),
};

/**
 * The catalog of the repository's models, then the extra catalog's, less the withheld: a function
 * of its sources alone. A model in both (or twice in either) is refused.
 */
export const modelCatalog = ({ repository, extra = null, withheld = [] }: CatalogSources): ModelCatalog => {
  const all = [...modelsOf(repository), ...(extra === null ? [] : modelsOf(extra))];
  const byId = new Map<string, ModelDefinition>();
  for (const model of all) {
    if (byId.has(model.id)) throw new Error(`model ${model.id} is in the catalog twice`);
    byId.set(model.id, model);
  }
  const hidden: ReadonlySet<string> = new Set(withheld);
  const catalogModel = (id: string): ModelDefinition | undefined => byId.get(id);
  const find = (id: string): ModelDefinition | undefined => (hidden.has(id) ? undefined : byId.get(id));
  return {
    all,
    offered: all.filter((model) => !hidden.has(model.id)),
    find,
    collections: collectionsOf(repository, extra, byId, find),
    catalogModel,
    require: (id) => {
      const model = catalogModel(id);
      if (!model) throw new Error(`model ${id} is not in the registry`);
      return model;
    },
    policyOfStored: (modelId) => {
      const model = catalogModel(modelId);
      return model === undefined ? WITHDRAWN_POLICY : policyOf(model);
    },
  };
};
