import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  checkedRepositoryCatalog,
  EXTRA_CATALOG_ENV,
  loadModelCatalog,
  WITHHELD_MODELS_ENV,
} from '../../shared/config/model-catalog.ts';
import { DEFAULT_MAX_ATTEMPTS, DEFAULT_QUEUE_SECONDS, policyOf } from '../../shared/catalog/definition.ts';
import { manifestFile, type Catalog } from '../../shared/catalog/manifest.ts';
import { modelCatalog, REPOSITORY_MANIFEST, repositoryCatalog } from '../../shared/catalog/model-catalog.ts';

const ECHO = 'prognoz/echo';
const BROUGHT = 'acme/wordcount';
const repository = repositoryCatalog();

/** A catalog of one model, `id`: the echo predictor under another name and price (as `--model id=folder,price=…` makes one). */
const extraWith = (id: string, pricePerSecond = '0.02'): Catalog => {
  const echo = repository.models.find((entry) => entry.id === ECHO);
  const derived = repository.derived[ECHO];
  if (!echo || !derived) throw new Error(`no ${ECHO} in the repository's catalog`);
  return { models: [{ ...echo, id, pricePerSecond }], derived: { [id]: derived } };
};

const idsOf = (models: readonly { readonly id: string }[]) => models.map((model) => model.id);

describe("the repository's manifest", () => {
  // A function reads the bundled manifest unchecked (bench §4): what it reads must be what the check gives.
  it('is read unchecked exactly as checking it gives it: its schema fills in and changes nothing', () => {
    expect(manifestFile.parse(REPOSITORY_MANIFEST)).toStrictEqual(REPOSITORY_MANIFEST);
    expect(repositoryCatalog().models).toStrictEqual(checkedRepositoryCatalog().models);
    expect(repositoryCatalog().collections).toStrictEqual(checkedRepositoryCatalog().collections);
  });

  it('is refused where it comes in when it has a slip', () => {
    const [first, ...rest] = (REPOSITORY_MANIFEST as { models: Record<string, unknown>[] }).models;
    const slipped = { ...(REPOSITORY_MANIFEST as object), models: [{ ...first, holdSeconds: -1 }, ...rest] };
    expect(manifestFile.safeParse(slipped).success).toBe(false);
  });
});

describe('a model catalog, built from its sources alone', () => {
  it("holds the repository's models, every one offered, when given nothing else", () => {
    const catalog = modelCatalog({ repository });
    expect(idsOf(catalog.all)).toEqual(repository.models.map((entry) => entry.id));
    expect(catalog.offered).toEqual(catalog.all);
    expect(catalog.find(ECHO)?.pricePerSecond).toBe('0.01');
    expect(catalog.find('prognoz/nothing')).toBeUndefined();
  });

  it("adds an extra catalog's models after the repository's, each with its contract derived", () => {
    const catalog = modelCatalog({ repository, extra: extraWith(BROUGHT) });
    expect(idsOf(catalog.all)).toEqual([...repository.models.map((entry) => entry.id), BROUGHT]);
    expect(idsOf(catalog.offered)).toContain(BROUGHT);
    const brought = catalog.require(BROUGHT);
    expect(brought.pricePerSecond).toBe('0.02');
    expect(brought.predictor).toEqual({ folder: 'models/echo', concurrency: 1 });
    expect(Object.keys(brought.input.shape)).toEqual(Object.keys(catalog.require(ECHO).input.shape));
  });

  it('refuses a model it would hold twice', () => {
    expect(() => modelCatalog({ repository, extra: extraWith(ECHO) })).toThrow(`model ${ECHO} is in the catalog twice`);
  });

  it('hides a withheld model from what it offers and finds, and keeps it for the predictions made for it', () => {
    const catalog = modelCatalog({ repository, withheld: [ECHO, 'prognoz/unknown'] });
    expect(idsOf(catalog.offered)).not.toContain(ECHO);
    expect(idsOf(catalog.offered)).toEqual(idsOf(catalog.all).filter((id) => id !== ECHO));
    expect(catalog.find(ECHO)).toBeUndefined();
    expect(idsOf(catalog.all)).toContain(ECHO);
    expect(catalog.catalogModel(ECHO)?.id).toBe(ECHO);
    expect(catalog.require(ECHO).pricePerSecond).toBe('0.01');
    expect(catalog.policyOfStored(ECHO)).toEqual(policyOf(catalog.require(ECHO)));
  });

  it('moves a prediction of a withdrawn model on free of charge, under the default limits', () => {
    const catalog = modelCatalog({ repository });
    expect(catalog.catalogModel(BROUGHT)).toBeUndefined();
    expect(() => catalog.require(BROUGHT)).toThrow(`model ${BROUGHT} is not in the registry`);
    expect(catalog.policyOfStored(BROUGHT)).toEqual({
      pricePerSecondMicro: 0n,
      limits: {
        queueSeconds: DEFAULT_QUEUE_SECONDS,
        runSeconds: DEFAULT_QUEUE_SECONDS,
        leaseSeconds: 20,
        maxAttempts: DEFAULT_MAX_ATTEMPTS,
      },
    });
    expect(catalog.policyOfStored(ECHO)).toEqual(policyOf(catalog.require(ECHO)));
    expect(catalog.policyOfStored(ECHO).pricePerSecondMicro).toBeGreaterThan(0n);
  });
});

describe("a process's model catalog, as its environment makes it", () => {
  const folder = mkdtempSync(path.join(tmpdir(), 'prognoz-catalog-test-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('is the repository’s alone where the environment names nothing', () => {
    expect(idsOf(loadModelCatalog({}).offered)).toEqual(repository.models.map((entry) => entry.id));
    expect(idsOf(loadModelCatalog({ [EXTRA_CATALOG_ENV]: '', [WITHHELD_MODELS_ENV]: '' }).all)).toEqual(
      repository.models.map((entry) => entry.id),
    );
  });

  it(`reads the extra catalog file ${EXTRA_CATALOG_ENV} names, less the models ${WITHHELD_MODELS_ENV} names`, () => {
    const file = path.join(folder, 'catalog.json');
    writeFileSync(file, JSON.stringify(extraWith(BROUGHT)));
    const catalog = loadModelCatalog({ [EXTRA_CATALOG_ENV]: file, [WITHHELD_MODELS_ENV]: `${ECHO},${BROUGHT}` });
    expect(idsOf(catalog.all)).toContain(BROUGHT);
    expect(idsOf(catalog.offered)).not.toContain(BROUGHT);
    expect(idsOf(catalog.offered)).not.toContain(ECHO);
    expect(catalog.require(BROUGHT).pricePerSecond).toBe('0.02');
  });

  it('refuses an extra catalog file that is not one', () => {
    const file = path.join(folder, 'not-a-catalog.json');
    writeFileSync(file, JSON.stringify({ models: [{ id: BROUGHT }] }));
    expect(() => loadModelCatalog({ [EXTRA_CATALOG_ENV]: file })).toThrow();
  });
});
