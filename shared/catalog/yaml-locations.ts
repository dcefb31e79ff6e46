import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
import type { CogKeyPath } from './cog-config-error.ts';

/** 1-based, as editors count. */
export interface YamlPosition {
  readonly line: number;
  readonly column: number;
}

export interface YamlSyntaxError extends YamlPosition {
  readonly message: string;
}

/** A YAML text parsed with the place of every node kept, so that a fault can name its line. */
export interface LocatedYaml {
  /** The document as plain values; undefined when it has syntax errors. */
  readonly value: unknown;
  readonly errors: readonly YamlSyntaxError[];
  /** Where the key is written (for an entry of a list, the entry), or null when the file has no such key. */
  readonly positionOf: (key: CogKeyPath) => YamlPosition | null;
  /** A scalar's value as written (`3.10` stays `3.10`, where the value is the number 3.1), or null when not a scalar. */
  readonly sourceOf: (key: CogKeyPath) => string | null;
  /** A scalar at the key as a person would quote it (`"3.8"`, `true`), or null when not a scalar. */
  readonly shownValueOf: (key: CogKeyPath) => string | null;
}

/** The node at `key` and, when its parent is a map, the node of the key itself. */
const walk = (root: unknown, key: CogKeyPath): { node: unknown; keyNode: unknown } | null => {
  let node = root;
  let keyNode: unknown = null;
  for (const part of key) {
    if (isMap(node)) {
      const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === String(part));
      if (!pair) return null;
      keyNode = pair.key;
      node = pair.value;
    } else if (isSeq(node) && typeof part === 'number') {
      if (part < 0 || part >= node.items.length) return null;
      node = node.items[part];
      keyNode = node;
    } else {
      return null;
    }
  }
  return { node, keyNode };
};

/** The message of a YAML error without the position and excerpt that the yaml package appends. */
const plainMessage = (message: string): string => message.replace(/ at line \d+, column \d+:[\s\S]*$/, '').trim();

export const parseLocatedYaml = (text: string): LocatedYaml => {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter });
  const at = (offset: number): YamlPosition => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  const errors = document.errors.map((error) => ({
    message: plainMessage(error.message),
    ...(error.linePos ? { line: error.linePos[0].line, column: error.linePos[0].col } : at(error.pos[0])),
  }));
  const scalarAt = (key: CogKeyPath) => {
    const found = walk(document.contents, key);
    return found && isScalar(found.node) ? found.node : null;
  };
  return {
    value: errors.length > 0 ? undefined : (document.toJS() as unknown),
    errors,
    positionOf: (key) => {
      const range = (walk(document.contents, key)?.keyNode as Node | null | undefined)?.range;
      return range ? at(range[0]) : null;
    },
    sourceOf: (key) => {
      const scalar = scalarAt(key);
      return scalar ? (scalar.source ?? String(scalar.value)) : null;
    },
    shownValueOf: (key) => {
      const scalar = scalarAt(key);
      if (!scalar) return null;
      return typeof scalar.value === 'string' ? JSON.stringify(scalar.value) : (scalar.source ?? String(scalar.value));
    },
  };
};
