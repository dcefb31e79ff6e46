import { readFileSync } from 'node:fs';
import * as z from 'zod';
import manifestJson from '../../models/manifest.json' with { type: 'json' };
import derivedJson from '../../models/schemas.json' with { type: 'json' };
import type { FieldIssue } from '../domain/errors.ts';
import { err, ok, type Result } from '../domain/result.ts';
import { contractOf } from './cog-schema.ts';
import type { PredictionPolicy } from '../domain/transition.ts';
import { DEFAULT_QUEUE_SECONDS, phaseLimitsOf, policyOf, type ModelDefinition } from './definition.ts';
import { catalog, derivedModel, manifestFile, type Catalog } from './manifest.ts';

export type { FileInput, ModelDefinition } from './definition.ts';
export { phaseLimitsOf, policyOf } from './definition.ts';

/** A catalog file beside the repository's (a local run's `--model` flags write one): its path. */
export const EXTRA_CATALOG_ENV = 'PROGNOZ_MODEL_CATALOG';

/**
 * Models of the catalog this run does not offer, as comma-separated ids: the local runtime names
 * those whose weights are absent (local/weights.ts). Unset on AWS, where every model is offered.
 */
export const WITHHELD_MODELS_ENV = 'PROGNOZ_WITHHELD_MODELS';

/** The models of a catalog, each with its contract derived from its predictor. */
export const modelsOf = (source: Catalog): ModelDefinition[] =>
  source.models.map((entry) => {
    const derived = source.derived[entry.id];
    if (!derived)
      throw new Error(
        `model ${entry.id} has no derived schema: run \`npm run models\` to derive it from ${entry.predictor}`,
      );
    return {
      ...entry,
      ...contractOf(derived, entry.id),
      fleet: { ...entry.fleet, maxTasksCap: entry.fleet.maxTasksCap ?? entry.fleet.maxTasks },
      predictor: { folder: entry.predictor, concurrency: derived.concurrency },
      versionCreatedAt: derived.derivedAt,
    };
  });

export const repositoryCatalog = (): Catalog => ({
  models: manifestFile.parse(manifestJson).models,
  derived: z.record(z.string(), derivedModel).parse(derivedJson),
});

const extraCatalog = (): Catalog | null => {
  const file = process.env[EXTRA_CATALOG_ENV];
  return file ? catalog.parse(JSON.parse(readFileSync(file, 'utf8'))) : null;
};

let loaded: { list: readonly ModelDefinition[]; byId: ReadonlyMap<string, ModelDefinition> } | null = null;
const registry = () => {
  if (!loaded) {
    const list = [...modelsOf(repositoryCatalog()), ...modelsOf(extraCatalog() ?? { models: [], derived: {} })];
    const byId = new Map<string, ModelDefinition>();
    for (const model of list) {
      if (byId.has(model.id)) throw new Error(`model ${model.id} is in the catalog twice`);
      byId.set(model.id, model);
    }
    loaded = { list, byId };
  }
  return loaded;
};

const withheld = (): ReadonlySet<string> =>
  new Set((process.env[WITHHELD_MODELS_ENV] ?? '').split(',').filter(Boolean));

/** Every model of the catalog, offered by this run or withheld. */
export const catalogModels = (): readonly ModelDefinition[] => registry().list;

/** Every model this deployment serves: the manifest's, then those a local run was given, less any withheld. */
export const allModels = (): readonly ModelDefinition[] => {
  const hidden = withheld();
  return registry().list.filter((model) => !hidden.has(model.id));
};

/** A model this deployment serves; undefined for an unknown or withheld one. */
export const findModel = (id: string): ModelDefinition | undefined =>
  withheld().has(id) ? undefined : registry().byId.get(id);

/** A model of the catalog, withheld or not: a prediction made for it keeps its price and limits to its end. */
export const requireModel = (id: string): ModelDefinition => {
  const model = catalogModel(id);
  if (!model) throw new Error(`model ${id} is not in the registry`);
  return model;
};

/**
 * A model of the catalog, withheld or not; undefined for one the catalog has no more (a model
 * taken out of the manifest, or brought to an earlier local run and not to this one), whose
 * predictions still stored can only be ended (ENDINGS.withdrawn).
 */
export const catalogModel = (id: string): ModelDefinition | undefined => registry().byId.get(id);

/** A withdrawn model's: nothing is charged for it, and its phases have the default limits. */
const WITHDRAWN_POLICY: PredictionPolicy = {
  pricePerSecondMicro: 0n,
  limits: phaseLimitsOf({ timeouts: { runSeconds: DEFAULT_QUEUE_SECONDS, heartbeatSeconds: 10 } }),
};

/** The policy a stored prediction moves on by: its model's, or a withdrawn model's. */
export const policyOfStored = (modelId: string): PredictionPolicy => {
  const model = catalogModel(modelId);
  return model === undefined ? WITHDRAWN_POLICY : policyOf(model);
};

const issuesToFields = (issues: readonly z.core.$ZodIssue[]): FieldIssue[] =>
  issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        field: [...issue.path, key].join('.'),
        message: 'is not an input of this model',
      }));
    }
    return [{ field: issue.path.join('.') || '(input)', message: issue.message }];
  });

/** Validates a request's input against the model's schema and fills in the defaults. */
export const validateInput = (
  model: ModelDefinition,
  input: Record<string, unknown>,
): Result<Record<string, unknown>, FieldIssue[]> => {
  const parsed = model.input.safeParse(input);
  if (!parsed.success) return err(issuesToFields(parsed.error.issues));
  // Echo the input in the schema's own field order, whatever order the caller used.
  const ordered = Object.keys(model.input.shape)
    .filter((key) => key in parsed.data)
    .map((key) => [key, parsed.data[key]] as const);
  return ok(Object.fromEntries(ordered));
};

/**
 * A model's schema as Cog writes one: a union input (`str | int | float`) as `anyOf` its types
 * (zod folds plain ones into `type: [...]`), and no range a whole number was not given (zod writes
 * JavaScript's safe integers).
 */
const asCogWritesIt = <T>(schema: T): T => {
  if (Array.isArray(schema)) return schema.map(asCogWritesIt) as T;
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [key, asCogWritesIt(value)]),
  );
  if (out.type === 'integer') {
    if (out.minimum === Number.MIN_SAFE_INTEGER) delete out.minimum;
    if (out.maximum === Number.MAX_SAFE_INTEGER) delete out.maximum;
  }
  if (Array.isArray(out.type) && !out.type.includes('null')) {
    out.anyOf = out.type.map((type: unknown) => ({ type }));
    delete out.type;
  }
  return out as T;
};

/** The published JSON Schema of a model, derived from the zod schemas (never written twice). */
export const jsonSchemaOf = (model: ModelDefinition) => ({
  input: asCogWritesIt(z.toJSONSchema(model.input, { io: 'input' })),
  output: asCogWritesIt(z.toJSONSchema(model.output, { io: 'output' })),
});

type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';

/**
 * Form bodies carry only strings. Each field is coerced to the type the model's schema declares
 * for it, so `sleep=2&fail=true` means the same as `{"sleep": 2, "fail": true}`. A value that
 * does not coerce is left as it was, for the schema to reject with a clear message.
 */
export const coerceFormInput = (model: ModelDefinition, form: Record<string, string>): Record<string, unknown> => {
  const schema = jsonSchemaOf(model).input as { properties?: Record<string, { type?: JsonType | JsonType[] }> };
  const properties = schema.properties ?? {};
  // Object.fromEntries makes every field an own property, `__proto__` included; a field the
  // schema lacks (own properties only: not `constructor`) stays a string for validation to refuse.
  return Object.fromEntries(
    Object.entries(form).map(([key, value]) => {
      const declared = Object.hasOwn(properties, key) ? properties[key]?.type : undefined;
      const types = Array.isArray(declared) ? declared : declared ? [declared] : [];
      return [key, coerceValue(value, types)];
    }),
  );
};

const coerceValue = (value: string, types: readonly JsonType[]): unknown => {
  if (types.includes('boolean') && (value === 'true' || value === 'false')) return value === 'true';
  if (
    (types.includes('number') || types.includes('integer')) &&
    value.trim() !== '' &&
    Number.isFinite(Number(value))
  ) {
    return Number(value);
  }
  return value;
};
