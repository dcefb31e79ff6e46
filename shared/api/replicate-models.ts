import * as z from 'zod';
import { COG_VERSION } from '../catalog/cog-version.ts';
import { ownerAndNameOf } from '../catalog/definition.ts';
import { jsonSchemaOf, type ModelDefinition } from '../catalog/registry.ts';

/**
 * Replicate's model, version and hardware objects, as its clients read them (interface:
 * Compatibility): `GET /models/{owner}/{name}`, its versions, `GET /hardware`. Each model has one
 * version, whose id is the model's own (`company/model`), as `version` in `POST /predictions` is.
 */

export const modelVersionSchema = z
  .object({
    id: z
      .string()
      .describe('`{company}/{model}`: each model has one version, and `POST /predictions` takes this as `version`.'),
    created_at: z.iso
      .datetime()
      .describe("When the model's interface (its predictor's input and output) last changed."),
    cog_version: z.string().describe('The Cog runtime that runs the model.'),
    openapi_schema: z
      .record(z.string(), z.unknown())
      .describe(
        "An OpenAPI document whose `components.schemas` has the model's `Input` and `Output` JSON Schema: the schemas the service validates with.",
      ),
  })
  .meta({ id: 'ModelVersion' });

export const replicateModelSchema = z
  .object({
    url: z.url().describe("The model's page in this API."),
    owner: z.string(),
    name: z.string(),
    description: z.string(),
    visibility: z.literal('public').describe('Every model of a deployment is open to all of its accounts.'),
    github_url: z.null(),
    paper_url: z.null(),
    license_url: z.null(),
    cover_image_url: z.null(),
    run_count: z.int().nonnegative().describe("The caller's account's predictions of this model this month."),
    default_example: z
      .record(z.string(), z.unknown())
      .nullable()
      .describe('The first of its examples (`GET /models/{owner}/{name}/examples`), or null when it has none.'),
    is_official: z.boolean(),
    latest_version: modelVersionSchema,
  })
  .meta({ id: 'ReplicateModel' });

export const modelVersionListSchema = z
  .object({
    results: z.array(modelVersionSchema).describe('The one version.'),
    next: z.null(),
    previous: z.null(),
  })
  .meta({ id: 'ModelVersionList' });

export const hardwareSchema = z
  .object({
    sku: z.string().describe('The instance type the fleets run on, as `deployments` names it.'),
    name: z.string().describe('What it is.'),
  })
  .meta({ id: 'Hardware' });

export const hardwareListSchema = z.array(hardwareSchema).meta({ id: 'HardwareList' });

export type ModelVersion = z.infer<typeof modelVersionSchema>;
export type ReplicateModel = z.infer<typeof replicateModelSchema>;
export type Hardware = z.infer<typeof hardwareSchema>;

/** The model's one version. */
export const modelVersion = (model: ModelDefinition): ModelVersion => {
  const { input, output } = jsonSchemaOf(model);
  return {
    id: model.id,
    created_at: model.versionCreatedAt,
    cog_version: COG_VERSION,
    openapi_schema: {
      openapi: '3.1.0',
      info: { title: model.id, version: model.id, description: model.description },
      paths: {},
      components: { schemas: { Input: input, Output: output } },
    },
  };
};

export const replicateModel = (
  model: ModelDefinition,
  apiBase: string,
  runCount: number,
  defaultExample: Readonly<Record<string, unknown>> | null,
): ReplicateModel => {
  return {
    url: `${apiBase}/models/${model.id}`,
    ...ownerAndNameOf(model.id),
    description: model.description,
    visibility: 'public',
    github_url: null,
    paper_url: null,
    license_url: null,
    cover_image_url: null,
    run_count: runCount,
    default_example: defaultExample === null ? null : { ...defaultExample },
    is_official: false,
    latest_version: modelVersion(model),
  };
};

/** The kinds of machine the models' fleets run on, once each, in the catalog's order. */
export const hardwareOf = (models: readonly ModelDefinition[]): Hardware[] => {
  const seen = new Map<string, Hardware>();
  for (const { fleet } of models) {
    if (seen.has(fleet.instanceType)) continue;
    seen.set(fleet.instanceType, {
      sku: fleet.instanceType,
      name: `${fleet.instanceType}, ${fleet.gpus === 0 ? 'CPU only' : `${fleet.gpus} GPU${fleet.gpus > 1 ? 's' : ''}`}`,
    });
  }
  return [...seen.values()];
};
