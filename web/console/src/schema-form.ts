/**
 * The Playground's form, derived from a model's input JSON Schema (as Cog publishes it): one field
 * per property in `x-order`, typed by the schema, with its default, bounds and choices; and the
 * input the form's values make. Pure, so it is tested without a browser.
 */

export interface JsonSchema {
  readonly type?: string | readonly string[];
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly anyOf?: readonly JsonSchema[];
  readonly enum?: readonly unknown[];
  readonly default?: unknown;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly format?: string;
  readonly title?: string;
  readonly description?: string;
  readonly 'x-order'?: number;
}

export type FieldKind = 'string' | 'integer' | 'number' | 'boolean' | 'choice' | 'file' | 'json';

export interface Field {
  readonly name: string;
  readonly label: string;
  readonly description: string;
  readonly kind: FieldKind;
  readonly required: boolean;
  readonly defaultValue: unknown;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly choices?: readonly string[];
}

/** What the form holds: text for every field but a checkbox. */
export type FormValues = Readonly<Record<string, string | boolean>>;

/** `anyOf: [X, {type: null}]` is Cog's optional X. */
const withoutNull = (schema: JsonSchema): JsonSchema => {
  const branches = schema.anyOf?.filter((branch) => branch.type !== 'null');
  return branches?.length === 1 && branches[0]
    ? { ...branches[0], ...(schema.default !== undefined ? { default: schema.default } : {}) }
    : schema;
};

const kindOf = (schema: JsonSchema): FieldKind => {
  if (schema.enum?.every((choice) => typeof choice === 'string')) return 'choice';
  if (schema.type === 'string') return schema.format === 'uri' ? 'file' : 'string';
  if (schema.type === 'integer' || schema.type === 'number' || schema.type === 'boolean') return schema.type;
  return 'json';
};

const humanized = (name: string): string => name.replaceAll('_', ' ').replace(/^./, (first) => first.toUpperCase());

export const fieldsOf = (schema: JsonSchema): Field[] =>
  Object.entries(schema.properties ?? {})
    .map(([name, raw]) => ({ name, raw, property: withoutNull(raw) }))
    .sort((a, b) => (a.raw['x-order'] ?? a.property['x-order'] ?? 0) - (b.raw['x-order'] ?? b.property['x-order'] ?? 0))
    .map(({ name, raw, property }) => {
      const kind = kindOf(property);
      return {
        name,
        label: property.title && property.title.toLowerCase() !== name.toLowerCase() ? property.title : humanized(name),
        description: property.description ?? raw.description ?? '',
        kind,
        required: schema.required?.includes(name) ?? false,
        defaultValue: property.default,
        ...(property.minimum !== undefined ? { minimum: property.minimum } : {}),
        ...(property.maximum !== undefined ? { maximum: property.maximum } : {}),
        ...(property.maxLength !== undefined ? { maxLength: property.maxLength } : {}),
        ...(property.pattern !== undefined ? { pattern: property.pattern } : {}),
        ...(kind === 'choice' ? { choices: (property.enum ?? []).map(String) } : {}),
      };
    });

export const initialValues = (fields: readonly Field[]): FormValues =>
  Object.fromEntries(
    fields.map((field): [string, string | boolean] => {
      if (field.kind === 'boolean') return [field.name, field.defaultValue === true];
      if (field.defaultValue === undefined || field.defaultValue === null) return [field.name, ''];
      const { defaultValue } = field;
      return [
        field.name,
        typeof defaultValue === 'string' || typeof defaultValue === 'number'
          ? String(defaultValue)
          : JSON.stringify(defaultValue),
      ];
    }),
  );

export type InputResult =
  | { readonly ok: true; readonly input: Record<string, unknown> }
  | { readonly ok: false; readonly errors: Readonly<Record<string, string>> };

const valueOf = (field: Field, raw: string | boolean): { value?: unknown; error?: string } => {
  if (typeof raw === 'boolean') return { value: raw };
  const text = raw.trim();
  if (text === '') return field.required ? { error: 'Required.' } : {};
  switch (field.kind) {
    case 'integer':
    case 'number': {
      const value = Number(text);
      if (!Number.isFinite(value) || (field.kind === 'integer' && !Number.isInteger(value)))
        return { error: field.kind === 'integer' ? 'A whole number.' : 'A number.' };
      if (field.minimum !== undefined && value < field.minimum) return { error: `At least ${field.minimum}.` };
      if (field.maximum !== undefined && value > field.maximum) return { error: `At most ${field.maximum}.` };
      return { value };
    }
    case 'json':
      try {
        return { value: JSON.parse(text) as unknown };
      } catch {
        return { error: 'Valid JSON.' };
      }
    default:
      return { value: field.kind === 'string' ? raw : text };
  }
};

/**
 * The model input the form's values make: a field left at its default is left out (the service
 * fills defaults in), so the input, and the snippets built from it, say only what was chosen.
 */
export const inputOf = (fields: readonly Field[], values: FormValues): InputResult => {
  const input: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const field of fields) {
    const { value, error } = valueOf(field, values[field.name] ?? '');
    if (error !== undefined) errors[field.name] = error;
    else if (value !== undefined && JSON.stringify(value) !== JSON.stringify(field.defaultValue))
      input[field.name] = value;
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, input };
};
