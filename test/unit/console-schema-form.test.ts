import { describe, expect, it } from 'vitest';
import { jsonSchemaOf } from '../../shared/catalog/registry.ts';
import { fieldsOf, initialValues, inputOf, type JsonSchema } from '../../web/console/src/schema-form.ts';
import { testCatalog } from '../support/catalog.ts';

const inputSchemaOf = (model: string) => jsonSchemaOf(testCatalog.require(model)).input as JsonSchema;

describe('the Playground form, from a model’s input JSON Schema', () => {
  it('has one field per input, in x-order, typed by the schema with its default and bounds', () => {
    const fields = fieldsOf(inputSchemaOf('prognoz/echo'));
    expect(fields.map((field) => [field.name, field.kind])).toEqual([
      ['text', 'string'],
      ['repeat', 'integer'],
      ['sleep', 'number'],
      ['fail', 'boolean'],
      ['file', 'file'],
    ]);
    expect(fields[1]).toMatchObject({ label: 'Repeat', defaultValue: 1, minimum: 1, maximum: 100 });
    expect(fields[4]).toMatchObject({ required: false });
    expect(initialValues(fields)).toEqual({ text: 'hello', repeat: '1', sleep: '0', fail: false, file: '' });
  });

  it('offers an enum as a choice and a URI as a file, and marks what is required', () => {
    const fields = fieldsOf(inputSchemaOf('openai/whisper-base'));
    const byName = Object.fromEntries(fields.map((field) => [field.name, field]));
    expect(byName.audio).toMatchObject({ kind: 'file', required: true });
    expect(byName.language?.kind).toBe('choice');
    expect(byName.language?.choices).toContain('de');
    expect(byName.language?.choices?.[0]).toBe('auto');
    expect(byName.diarize?.kind).toBe('boolean');
  });

  it('makes the input of what was chosen: defaults left out, numbers as numbers, empty optional fields absent', () => {
    const fields = fieldsOf(inputSchemaOf('prognoz/echo'));
    const values = { ...initialValues(fields), text: 'привет', repeat: '3', fail: true };
    expect(inputOf(fields, values)).toEqual({ ok: true, input: { text: 'привет', repeat: 3, fail: true } });
    expect(inputOf(fields, initialValues(fields))).toEqual({ ok: true, input: {} });
  });

  it('refuses what the schema refuses, field by field', () => {
    const fields = fieldsOf(inputSchemaOf('prognoz/echo'));
    const result = inputOf(fields, { ...initialValues(fields), repeat: '2.5', sleep: '-1' });
    expect(result).toEqual({ ok: false, errors: { repeat: 'A whole number.', sleep: 'At least 0.' } });
    const whisper = fieldsOf(inputSchemaOf('openai/whisper-base'));
    expect(inputOf(whisper, initialValues(whisper))).toMatchObject({ ok: false, errors: { audio: 'Required.' } });
  });
});
