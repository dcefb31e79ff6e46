import { z } from 'zod';
import type { FieldIssue } from '../domain/errors.ts';
import { err, ok, type Result } from '../domain/result.ts';
import type { ModelDefinition } from './definition.ts';
import { echoModel } from './echo.ts';
import { whisperBaseModel } from './transcribe.ts';

export type { ModelDefinition } from './definition.ts';
export { phaseLimitsOf, policyOf } from './definition.ts';

export const MODELS: readonly ModelDefinition[] = [echoModel, whisperBaseModel];

const byId = new Map(MODELS.map((model) => [model.id, model]));

export const findModel = (id: string): ModelDefinition | undefined => byId.get(id);

export const requireModel = (id: string): ModelDefinition => {
  const model = findModel(id);
  if (!model) throw new Error(`model ${id} is not in the registry`);
  return model;
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

/** The published JSON Schema of a model, derived from the zod schemas (never written twice). */
export const jsonSchemaOf = (model: ModelDefinition) => ({
  input: z.toJSONSchema(model.input, { io: 'input' }),
  output: z.toJSONSchema(model.output, { io: 'output' }),
});

type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';

/**
 * Form bodies carry only strings. Each field is coerced to the type the model's schema declares
 * for it, so `sleep=2&fail=true` means the same as `{"sleep": 2, "fail": true}`. A value that
 * does not coerce is left as it was, for the schema to reject with a clear message.
 */
export const coerceFormInput = (model: ModelDefinition, form: Record<string, string>): Record<string, unknown> => {
  const schema = jsonSchemaOf(model).input as { properties?: Record<string, { type?: JsonType | JsonType[] }> };
  const coerced: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(form)) {
    const declared = schema.properties?.[key]?.type;
    const types = Array.isArray(declared) ? declared : declared ? [declared] : [];
    coerced[key] = coerceValue(value, types);
  }
  return coerced;
};

const coerceValue = (value: string, types: readonly JsonType[]): unknown => {
  if (types.includes('boolean') && (value === 'true' || value === 'false')) return value === 'true';
  if ((types.includes('number') || types.includes('integer')) && value.trim() !== '' && Number.isFinite(Number(value))) {
    return Number(value);
  }
  return value;
};
