import { contractOf } from '../../shared/catalog/cog-schema.ts';
import { describe, expect, it } from 'vitest';
import { manifestEntry } from '../../shared/catalog/manifest.ts';
import { modelsOf, repositoryCatalog } from '../../shared/catalog/model-catalog.ts';
import { coerceFormInput, jsonSchemaOf, validateInput } from '../../shared/catalog/registry.ts';
import { testCatalog } from '../support/catalog.ts';

const echoModel = testCatalog.require('prognoz/echo');

describe('the model registry', () => {
  it('finds prognoz/echo with its price', () => {
    expect(testCatalog.find('prognoz/echo')?.pricePerSecond).toBe('0.01');
    expect(testCatalog.find('prognoz/nothing')).toBeUndefined();
  });

  it("holds the manifest's models, each with its predictor folder and what was derived from it", () => {
    expect(testCatalog.offered.map((model) => model.id)).toEqual(
      expect.arrayContaining(['prognoz/echo', 'prognoz/stream', 'openai/whisper-base']),
    );
    expect(echoModel.predictor).toEqual({ folder: 'models/echo', concurrency: 1 });
    expect(echoModel.files).toEqual([{ name: 'file', list: false }]);
    expect(testCatalog.require('openai/whisper-base').files).toEqual([{ name: 'audio', list: false }]);
    expect([echoModel.streams, testCatalog.require('prognoz/stream').streams]).toEqual([false, true]);
  });

  it('fills defaults and echoes the input in schema order', () => {
    const result = validateInput(echoModel, { fail: true, text: 'x' });
    expect(result).toEqual({ ok: true, value: { text: 'x', repeat: 1, sleep: 0, fail: true } });
    expect(Object.keys(result.ok ? result.value : {})).toEqual(['text', 'repeat', 'sleep', 'fail']);
  });

  it('names every failing field', () => {
    const result = validateInput(echoModel, { sleep: 301, file: 'data:,x', extra: 1 });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.map((issue) => issue.field).sort()).toEqual(['extra', 'file', 'sleep']);
  });

  it('coerces form strings by the schema, leaving what does not coerce for the schema to reject', () => {
    expect(coerceFormInput(echoModel, { sleep: '2.5', fail: 'true', text: '42' })).toEqual({
      sleep: 2.5,
      fail: true,
      text: '42',
    });
    const bad = coerceFormInput(echoModel, { sleep: 'soon', fail: 'maybe' });
    expect(validateInput(echoModel, bad).ok).toBe(false);
  });

  it('publishes JSON Schema derived from the predictor', () => {
    const schema = jsonSchemaOf(echoModel);
    expect(schema.input).toMatchObject({
      type: 'object',
      additionalProperties: false,
      properties: {
        text: { type: 'string', default: 'hello', 'x-order': 0 },
        sleep: { type: 'number', minimum: 0, maximum: 300 },
      },
    });
    expect(schema.output).toMatchObject({ type: 'object', required: ['text'] });
  });

  it("publishes a union input as Cog writes it, anyOf its types, and whole numbers without JavaScript's range", () => {
    const union = {
      ...echoModel,
      ...contractOf(
        {
          input: {
            properties: {
              value: { title: 'Value', anyOf: [{ type: 'string' }, { type: 'integer' }, { type: 'number' }] },
              count: { title: 'Count', type: 'integer', default: 1 },
            },
            required: ['value'],
          },
          enums: {},
          output: { type: 'string' },
        },
        'acme/union',
      ),
    };
    const { properties } = jsonSchemaOf(union).input as { properties: Record<string, Record<string, unknown>> };
    expect(properties.value).toEqual({
      anyOf: [{ type: 'string' }, { type: 'integer' }, { type: 'number' }],
      title: 'Value',
      'x-order': 0,
    });
    expect(properties.count).toEqual({ type: 'integer', default: 1, title: 'Count', 'x-order': 0 });
  });

  it("caps what an operator may raise a fleet's maximum to: the manifest's maxTasksCap, else its maxTasks, never less", () => {
    expect(testCatalog.require('openai/whisper-base').fleet).toMatchObject({ maxTasks: 4, maxTasksCap: 8 });
    expect(echoModel.fleet).toMatchObject({ maxTasks: 2, maxTasksCap: 4 });
    const catalog = repositoryCatalog();
    const [echo] = catalog.models.filter((entry) => entry.id === 'prognoz/echo');
    if (!echo) throw new Error('no prognoz/echo in the manifest');
    const { maxTasksCap, ...uncapped } = echo.fleet;
    expect(maxTasksCap).toBe(4);
    const [resolved] = modelsOf({ models: [{ ...echo, fleet: uncapped }], derived: catalog.derived });
    expect(resolved?.fleet.maxTasksCap).toBe(echo.fleet.maxTasks);
    const below = manifestEntry.safeParse({ ...echo, fleet: { ...echo.fleet, maxTasks: 3, maxTasksCap: 2 } });
    expect(below.success).toBe(false);
    const issues = below.error?.issues ?? [];
    expect(issues.map((issue) => issue.path)).toEqual([['fleet', 'maxTasksCap']]);
    expect(issues[0]?.message).toMatch(/at least maxTasks/);
  });
});
