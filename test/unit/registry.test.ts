import { describe, expect, it } from 'vitest';
import {
  allModels,
  coerceFormInput,
  findModel,
  jsonSchemaOf,
  requireModel,
  validateInput,
} from '../../shared/models/registry.ts';

const echoModel = requireModel('prognoz/echo');

describe('the model registry', () => {
  it('finds prognoz/echo with its price', () => {
    expect(findModel('prognoz/echo')?.pricePerSecond).toBe('0.01');
    expect(findModel('prognoz/nothing')).toBeUndefined();
  });

  it("holds the manifest's models, each with its predictor folder and what was derived from it", () => {
    expect(allModels().map((model) => model.id)).toEqual(
      expect.arrayContaining(['prognoz/echo', 'prognoz/stream', 'openai/whisper-base']),
    );
    expect(echoModel.predictor).toEqual({ folder: 'models/echo', concurrency: 1 });
    expect(echoModel.files).toEqual([{ name: 'file', list: false }]);
    expect(requireModel('openai/whisper-base').files).toEqual([{ name: 'audio', list: false }]);
    expect([echoModel.streams, requireModel('prognoz/stream').streams]).toEqual([false, true]);
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
});
