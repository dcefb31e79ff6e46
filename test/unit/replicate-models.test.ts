import { describe, expect, it } from 'vitest';
import {
  hardwareListSchema,
  hardwareOf,
  modelVersion,
  replicateModel,
  replicateModelSchema,
} from '../../shared/api/replicate-models.ts';
import { COG_VERSION } from '../../shared/catalog/cog-version.ts';
import { jsonSchemaOf } from '../../shared/catalog/registry.ts';
import { fixtureModel } from '../support/fleet.ts';
import { testCatalog } from '../support/catalog.ts';

const echo = testCatalog.require('prognoz/echo');

describe("Replicate's model objects", () => {
  it("show a model with its one version: the model's id, the schemas the service validates with", () => {
    const model = replicateModel(echo, 'https://api.example.com/api/v1', 3, null);
    expect(replicateModelSchema.parse(model)).toEqual(model);
    expect(model).toMatchObject({
      url: 'https://api.example.com/api/v1/models/prognoz/echo',
      owner: 'prognoz',
      name: 'echo',
      visibility: 'public',
      run_count: 3,
      latest_version: { id: 'prognoz/echo', created_at: echo.versionCreatedAt, cog_version: COG_VERSION },
    });
    const schemas = (model.latest_version.openapi_schema.components as { schemas: Record<string, unknown> }).schemas;
    expect(schemas).toEqual({ Input: jsonSchemaOf(echo).input, Output: jsonSchemaOf(echo).output });
  });

  it('give a version the same whether read alone or within its model', () => {
    expect(replicateModel(echo, 'https://x/api/v1', 0, null).latest_version).toEqual(modelVersion(echo));
  });

  it('list each kind of machine the fleets run on once, saying whether it has GPUs', () => {
    const models = [
      fixtureModel('cpu-model', { id: 'acme/a', fleet: { instanceType: 't3.small', gpus: 0 } }),
      fixtureModel('gpu-model', { id: 'acme/b', fleet: { instanceType: 'g5.xlarge', gpus: 1 } }),
      fixtureModel('gpu-model', { id: 'acme/c', fleet: { instanceType: 'g5.xlarge', gpus: 1 } }),
      fixtureModel('gpu-model', { id: 'acme/d', fleet: { instanceType: 'g5.12xlarge', gpus: 4 } }),
    ];
    const hardware = hardwareOf(models);
    expect(hardwareListSchema.parse(hardware)).toEqual(hardware);
    expect(hardware).toEqual([
      { sku: 't3.small', name: 't3.small, CPU only' },
      { sku: 'g5.xlarge', name: 'g5.xlarge, 1 GPU' },
      { sku: 'g5.12xlarge', name: 'g5.12xlarge, 4 GPUs' },
    ]);
  });
});
