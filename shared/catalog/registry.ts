import * as z from '../zod-mini.ts';
import type { FieldIssue } from '../domain/errors.ts';
import { err, ok, type Result } from '../domain/result.ts';
import type { ModelDefinition } from './definition.ts';

export type { FileInput, ModelDefinition } from './definition.ts';
export { phaseLimitsOf, policyOf } from './definition.ts';

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
