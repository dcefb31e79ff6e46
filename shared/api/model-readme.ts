import { jsonSchemaOf, type ModelDefinition } from '../catalog/registry.ts';

interface InputProperty {
  readonly type?: string | string[];
  readonly format?: string;
  readonly default?: unknown;
  readonly description?: string;
  readonly 'x-order'?: number;
  readonly allOf?: unknown[];
  readonly enum?: unknown[];
  readonly anyOf?: InputProperty[];
}

/** An optional input (`Optional[…]`) is `anyOf` its type and null: read as its type. */
const plain = (property: InputProperty): InputProperty => {
  const [only, ...more] = (property.anyOf ?? []).filter((branch) => branch.type !== 'null');
  return only === undefined || more.length > 0 ? property : { ...only, ...property, anyOf: undefined };
};

/** A cell of a markdown table: its pipes escaped, on one line. */
const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');

const typeOf = (property: InputProperty): string => {
  if (property.format === 'uri') return 'file (URL)';
  if (property.enum !== undefined || property.allOf !== undefined) return 'choice';
  const types = Array.isArray(property.type) ? property.type : property.type ? [property.type] : [];
  return types.join(' or ') || 'any';
};

/**
 * A model's README (`GET /models/{owner}/{name}/readme`): its predictor folder's README.md, or,
 * for a model without one, a short page made from what the catalog says of it: its description,
 * its price and a table of its inputs.
 */
export const readmeOf = (model: ModelDefinition): string => {
  if (model.readme !== null) return model.readme;
  const schema = jsonSchemaOf(model).input as { properties?: Record<string, InputProperty>; required?: string[] };
  const required = new Set(schema.required ?? []);
  const rows = Object.entries(schema.properties ?? {})
    .map(([name, property]) => [name, plain(property)] as const)
    .sort(([, a], [, b]) => (a['x-order'] ?? 0) - (b['x-order'] ?? 0))
    .map(([name, property]) => {
      const given = required.has(name)
        ? 'required'
        : property.default === undefined
          ? 'optional'
          : `\`${JSON.stringify(property.default)}\``;
      return `| \`${name}\` | ${typeOf(property)} | ${cell(given)} | ${cell(property.description ?? '')} |`;
    });
  return [
    `# ${model.id}`,
    '',
    model.description,
    '',
    `Price: ${model.pricePerSecond} ₽ per second of model time.`,
    '',
    '## Input',
    '',
    ...(rows.length === 0
      ? ['It takes no input.']
      : ['| Input | Type | Default | Description |', '|---|---|---|---|', ...rows]),
    '',
  ].join('\n');
};
