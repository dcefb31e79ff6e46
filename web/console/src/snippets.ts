/**
 * Ready-to-run code for the API tab: curl, and Replicate's JavaScript and Python clients (which
 * speak to prognoz unchanged), with the service's real address and the Playground's input.
 */

export interface SnippetTarget {
  /** The API's base address, `https://host/api/v1`. */
  readonly apiBase: string;
  /** `{company}/{model}`. */
  readonly model: string;
  readonly input: Readonly<Record<string, unknown>>;
}

export type SnippetLanguage = 'curl' | 'javascript' | 'python';

const TOKEN_VARIABLE = 'PROGNOZ_API_TOKEN';

/** A single-quoted shell word: `'` closes, is escaped, and reopens. */
const shellQuoted = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

/** JSON as a Python literal: the same, but for true, false and null. */
export const pythonLiteral = (value: unknown, indent = ''): string => {
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number' || typeof value === 'string') return JSON.stringify(value);
  const inner = `${indent}    `;
  if (Array.isArray(value))
    return value.length === 0
      ? '[]'
      : `[\n${value.map((item) => `${inner}${pythonLiteral(item, inner)}`).join(',\n')},\n${indent}]`;
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return '{}';
  return `{\n${entries.map(([key, item]) => `${inner}${JSON.stringify(key)}: ${pythonLiteral(item, inner)}`).join(',\n')},\n${indent}}`;
};

const curl = ({ apiBase, model, input }: SnippetTarget): string =>
  [
    `curl -s -X POST ${shellQuoted(`${apiBase}/${model}`)} \\`,
    `  -H "Authorization: Bearer $${TOKEN_VARIABLE}" \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -H 'Prefer: SYNC' \\`,
    `  -d ${shellQuoted(JSON.stringify(input))}`,
  ].join('\n');

const javascript = ({ apiBase, model, input }: SnippetTarget): string =>
  [
    `// npm install replicate`,
    `import Replicate from 'replicate';`,
    ``,
    `const prognoz = new Replicate({ auth: process.env.${TOKEN_VARIABLE}, baseUrl: ${JSON.stringify(apiBase)} });`,
    `const output = await prognoz.run(${JSON.stringify(model)}, { input: ${JSON.stringify(input, null, 2).replaceAll('\n', '\n  ')} });`,
    `console.log(output);`,
  ].join('\n');

const python = ({ apiBase, model, input }: SnippetTarget): string =>
  [
    `# pip install replicate`,
    `import os`,
    `import replicate`,
    ``,
    // Replicate's Python client puts its own /v1 after the base URL.
    `prognoz = replicate.Client(api_token=os.environ[${JSON.stringify(TOKEN_VARIABLE)}], base_url=${JSON.stringify(apiBase.replace(/\/v1$/, ''))})`,
    `output = prognoz.run(${JSON.stringify(model)}, input=${pythonLiteral(input)})`,
    `print(output)`,
  ].join('\n');

export const snippet = (language: SnippetLanguage, target: SnippetTarget): string =>
  ({ curl, javascript, python })[language](target);
