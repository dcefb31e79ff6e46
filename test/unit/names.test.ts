import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const tsFiles = (folder: string): string[] =>
  readdirSync(path.join(ROOT, folder))
    .filter((name) => name.endsWith('.ts'))
    .map((name) => `${folder}/${name}`);
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const stemOf = (file: string) => path.basename(file, '.ts');

/** The interfaces of each port file that have methods (the port itself, not the data it speaks). */
const PORTS = new Map(
  tsFiles('shared/ports').map((file) => [
    stemOf(file),
    [...read(file).matchAll(/^export interface (\w+)[^{]*\{([\s\S]*?)^\}/gm)]
      .filter((match) => /^\s+(?:readonly )?\w+\??(?:<[^>]*>)?(?:\(|: \()/m.test(match[2] ?? ''))
      .map((match) => match[1] ?? '')
      .concat([...read(file).matchAll(/^export type (\w+) = \(/gm)].map((match) => match[1] ?? '')),
  ]),
);

/** The ports a module implements: the port interfaces it returns or types a value as. */
const implemented = (file: string): string[] => {
  const source = read(file);
  return [...PORTS].flatMap(([stem, interfaces]) =>
    source.includes(`ports/${stem}.ts'`) &&
    interfaces.some((name) =>
      new RegExp(`\\): (?:${name}|[\\w<>, ]*\\b${name}\\b[^=\\n]*) (?:=>|\\{)|: ${name} = `).test(source),
    )
      ? [stem]
      : [],
  );
};

const ADAPTER_FOLDERS = ['shared/adapters', 'worker', 'local', 'test/support/in-memory'];

describe('names match what they name', () => {
  it("each port's adapters, and their in-memory twins, are named after it", () => {
    const misnamed = ADAPTER_FOLDERS.flatMap(tsFiles).flatMap((file) =>
      implemented(file)
        .filter((stem) => !stemOf(file).includes(stem))
        .map((stem) => `${file} implements ports/${stem}.ts`),
    );
    expect(misnamed).toEqual([]);
  });

  it('every port has an adapter named after it', () => {
    const without = [...PORTS.keys()].filter(
      (stem) =>
        !['shared/adapters', 'worker', 'local']
          .flatMap(tsFiles)
          .some((file) => stemOf(file).includes(stem) && implemented(file).includes(stem)),
    );
    expect(without).toEqual([]);
  });

  it("the TypeScript model catalog and the Python predictors' folder do not share a name", () => {
    expect(readdirSync(path.join(ROOT, 'shared'))).not.toContain('models');
    expect(readdirSync(path.join(ROOT, 'shared'))).toContain('catalog');
  });
});
