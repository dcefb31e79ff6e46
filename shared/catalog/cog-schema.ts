import * as z from '../zod-mini.ts';
import type { FileInput, ModelContract } from './definition.ts';
import { httpUrl } from './fields.ts';

/**
 * Cog's schemas (OpenAPI 3.0 dialect, as Cog derives them from a predictor's signature) turned
 * into the zod schemas prognoz validates with and publishes. Written here rather than through
 * z.fromJSONSchema: Cog's dialect is small and fixed (`nullable`, enums behind `allOf` refs,
 * `x-cog-secret`), and a `uri` input must pass prognoz's own URL rule (http(s) only), not
 * JSON Schema's (which admits `data:` and any scheme).
 */
interface CogProperty {
  readonly type?: string;
  readonly format?: string;
  readonly items?: CogProperty;
  readonly properties?: Record<string, CogProperty>;
  readonly required?: readonly string[];
  readonly allOf?: readonly { readonly $ref: string }[];
  /** A union input (`str | int | float`): one of these. */
  readonly anyOf?: readonly CogProperty[];
  readonly enum?: readonly (string | number)[];
  readonly default?: unknown;
  readonly nullable?: boolean;
  readonly description?: string;
  readonly title?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly deprecated?: boolean;
  readonly 'x-order'?: number;
  readonly 'x-cog-secret'?: boolean;
  readonly 'x-cog-array-type'?: string;
}

export interface CogInputSchema {
  readonly properties?: Record<string, CogProperty>;
  readonly required?: readonly string[];
}

const isFile = (property: CogProperty): boolean => property.type === 'string' && property.format === 'uri';
const isSecret = (property: CogProperty): boolean => property['x-cog-secret'] === true;

/** What a JavaScript pattern in unicode mode may escape as itself: its syntax characters and `/`. */
const JS_ESCAPABLE = new Set('^$\\.*+?()[]{}|/');

/**
 * Python's escapes of other punctuation (`re.escape("large-v3")` is `large\-v3`), which a
 * unicode-mode pattern refuses, as the plain character (`\-` is kept in a class, where it is allowed).
 */
const plainEscapes = (pattern: string): string => {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern.charAt(i);
    if (char === '\\' && i + 1 < pattern.length) {
      const next = pattern.charAt(++i);
      out += /[A-Za-z0-9]/.test(next) || JS_ESCAPABLE.has(next) || (next === '-' && inClass) ? `\\${next}` : next;
      continue;
    }
    if (char === '[') inClass = true;
    else if (char === ']') inClass = false;
    out += char;
  }
  return out;
};

/** A Python regex in JavaScript's spelling: named groups `(?P<name>…)`, back-references `(?P=name)`, escapes. */
const jsPattern = (pattern: string): RegExp =>
  new RegExp(
    plainEscapes(pattern)
      .replace(/\(\?P</g, '(?<')
      .replace(/\(\?P=(\w+)\)/g, '\\k<$1>'),
    'u',
  );

const enumOf = (values: readonly (string | number)[], where: string): z.ZodMiniType => {
  if (values.length === 0) throw new Error(`${where}: an enumeration without values`);
  if (values.every((value) => typeof value === 'string')) return z.enum(values as [string, ...string[]]);
  return z.literal(values as [string | number, ...(string | number)[]]);
};

const primitiveOf = (property: CogProperty, where: string): z.ZodMiniType => {
  if (property.anyOf !== undefined) {
    // Each of its types as Cog validates it, the value passed on as it came (no coercion).
    const [first, second, ...rest] = property.anyOf.map((variant, index) => primitiveOf(variant, `${where}|${index}`));
    if (first === undefined) throw new Error(`${where}: a union of no types`);
    return second === undefined ? first : z.union([first, second, ...rest]);
  }
  switch (property.type) {
    case 'string': {
      if (isFile(property)) return httpUrl();
      const checks: z.core.$ZodCheck<string>[] = [];
      if (property.minLength !== undefined) checks.push(z.minLength(property.minLength));
      if (property.maxLength !== undefined) checks.push(z.maxLength(property.maxLength));
      if (property.pattern !== undefined)
        checks.push(z.regex(jsPattern(property.pattern), `must match ${property.pattern}`));
      if (isSecret(property)) checks.push(z.meta({ format: 'password', writeOnly: true, 'x-cog-secret': true }));
      return checks.length === 0 ? z.string() : z.string().check(...checks);
    }
    case 'integer':
    case 'number': {
      const checks: z.core.$ZodCheck<number>[] = [];
      if (property.minimum !== undefined) checks.push(z.minimum(property.minimum));
      if (property.maximum !== undefined) checks.push(z.maximum(property.maximum));
      const schema = property.type === 'integer' ? z.int() : z.number();
      return checks.length === 0 ? schema : schema.check(...checks);
    }
    case 'boolean':
      return z.boolean();
    case 'array': {
      if (!property.items) throw new Error(`${where}: an array without items`);
      const checks: z.core.$ZodCheck<unknown[]>[] = [];
      if (property.minLength !== undefined) checks.push(z.minLength(property.minLength));
      if (property.maxLength !== undefined) checks.push(z.maxLength(property.maxLength));
      const schema = z.array(primitiveOf(property.items, `${where}[]`));
      return checks.length === 0 ? schema : schema.check(...checks);
    }
    case 'object':
      return z.record(z.string(), z.unknown());
    default:
      throw new Error(
        `${where}: the input's type, as Cog describes it (${JSON.stringify(property)}), is not one prognoz serves`,
      );
  }
};

/** The input schema of a predictor: strict (unknown fields are refused), defaults filled in, in Cog's field order. */
export const inputOf = (
  cog: CogInputSchema,
  enums: Readonly<Record<string, unknown>>,
  where: string,
): Pick<ModelContract, 'input' | 'files' | 'secrets' | 'nullWhenOmitted'> => {
  const required = new Set(cog.required ?? []);
  const entries = Object.entries(cog.properties ?? {}).sort(
    ([, a], [, b]) => (a['x-order'] ?? 0) - (b['x-order'] ?? 0),
  );
  const shape: Record<string, z.ZodMiniType> = {};
  const files: FileInput[] = [];
  const secrets: string[] = [];
  const nullWhenOmitted: string[] = [];
  for (const [name, property] of entries) {
    const ref = property.allOf?.[0]?.$ref;
    const resolved: CogProperty = ref
      ? { ...(enums[ref.split('/').pop() ?? ''] as CogProperty | undefined), ...property }
      : property;
    let field = resolved.enum ? enumOf(resolved.enum, `${where}.${name}`) : primitiveOf(resolved, `${where}.${name}`);
    if (isFile(resolved) || (resolved.type === 'array' && resolved.items && isFile(resolved.items)))
      files.push({ name, list: resolved.type === 'array' });
    if (isSecret(resolved) || (resolved.items && isSecret(resolved.items))) secrets.push(name);
    const meta: Record<string, unknown> = { 'x-order': resolved['x-order'] ?? 0 };
    if (resolved.title !== undefined) meta.title = resolved.title;
    if (resolved.deprecated) meta.deprecated = true;
    field = field.check(z.meta(meta));
    if (resolved.description !== undefined) field = field.check(z.describe(resolved.description));
    if (resolved.nullable) field = z.nullable(field);
    if (resolved.default !== undefined) field = z._default(field, resolved.default);
    else if (!required.has(name)) {
      field = z.optional(field);
      if (resolved.nullable) nullWhenOmitted.push(name);
    }
    shape[name] = field;
  }
  return { input: z.strictObject(shape), files, secrets, nullWhenOmitted };
};

/**
 * A run's output checked against its model's output schema. None (null) is no output, whatever
 * the type, as under Cog: coglet ends such a run succeeded with `output: null`.
 */
export const checkOutput = (
  schema: z.ZodMiniType,
  output: unknown,
):
  { readonly success: true; readonly data: unknown } | { readonly success: false; readonly error: z.core.$ZodError } =>
  output === null || output === undefined ? { success: true, data: null } : schema.safeParse(output);

/** The output schema: what the model must answer. Objects keep fields the schema does not name. */
export const outputOf = (cog: CogProperty, where = 'output'): z.ZodMiniType => {
  if (cog.enum) return enumOf(cog.enum, where);
  let schema: z.ZodMiniType;
  switch (cog.type) {
    case undefined:
      schema = z.unknown();
      break;
    case 'object': {
      if (!cog.properties) {
        schema = z.record(z.string(), z.unknown());
        break;
      }
      const required = new Set(cog.required ?? []);
      const shape = Object.fromEntries(
        Object.entries(cog.properties).map(([name, property]) => {
          const field = outputOf(property, `${where}.${name}`);
          return [name, required.has(name) ? field : z.optional(field)];
        }),
      );
      schema = z.looseObject(shape);
      break;
    }
    case 'array':
      schema = z.array(cog.items ? outputOf(cog.items, `${where}[]`) : z.unknown());
      break;
    case 'string':
      schema = z.string();
      break;
    case 'integer':
      schema = z.int();
      break;
    case 'number':
      schema = z.number();
      break;
    case 'boolean':
      schema = z.boolean();
      break;
    default:
      throw new Error(
        `${where}: the output's type, as Cog describes it (${JSON.stringify(cog)}), is not one prognoz serves`,
      );
  }
  return cog.nullable ? z.nullable(schema) : schema;
};

/** A model's contract from what was derived from its predictor. */
export const contractOf = (
  derived: { input: unknown; enums: Record<string, unknown>; output: unknown },
  where: string,
): ModelContract => ({
  ...inputOf(derived.input as CogInputSchema, derived.enums, where),
  output: outputOf(derived.output as CogProperty),
  // An iterator output (Cog's `Iterator`, `ConcatenateIterator`) is the one Cog streams while the run goes on.
  streams: (derived.output as CogProperty)['x-cog-array-type'] === 'iterator',
});
