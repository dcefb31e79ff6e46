import { createHmac } from 'node:crypto';

/**
 * Files a model returns (`cog.Path`): coglet hands them to the worker as data URLs, the worker
 * keeps each as an object in the outputs bucket and writes a reference to it in the output, and
 * every view of the output (GET, a webhook, the event stream, a list) shows that reference as
 * the file's https URL on the API. A caller never sees a data URL or a path on the model's machine.
 */

/** How a kept file is written in a stored output: the scheme, then its key in the outputs bucket. */
const FILE_REFERENCE = 'prognoz-file:';

export interface DataUrl {
  readonly contentType: string;
  readonly bytes: Buffer;
}

// RFC 2397: data:[<mediatype>][;base64],<data>
const DATA_URL = /^data:([^,]*?)(;base64)?,/i;

/** The bytes and type of a data URL, or null when `text` is not one. */
export const parseDataUrl = (text: string): DataUrl | null => {
  const head = DATA_URL.exec(text.slice(0, 512));
  if (!head) return null;
  const body = text.slice(head[0].length);
  const contentType = (head[1] ?? '').trim() || 'text/plain;charset=US-ASCII';
  try {
    return {
      contentType,
      bytes: head[2] ? Buffer.from(body, 'base64') : Buffer.from(decodeURIComponent(body), 'utf8'),
    };
  } catch {
    return null;
  }
};

export const fileReference = (key: string): string => `${FILE_REFERENCE}${key}`;

/**
 * The key a reference in this prediction's output names, or null when the string is not a
 * reference to one of its own files. A model could print such a string itself: it can never
 * name anything outside its own prediction's outputs.
 */
export const referencedKey = (text: string, ownPrefix: string): string | null => {
  if (!text.startsWith(FILE_REFERENCE)) return null;
  const key = text.slice(FILE_REFERENCE.length);
  return key.startsWith(ownPrefix) && !key.split('/').includes('..') ? key : null;
};

/** `value` (parsed JSON) with every string replaced by what `replace` makes of it. */
export const mapStrings = (value: unknown, replace: (text: string) => string): unknown => {
  if (typeof value === 'string') return replace(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, replace));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([name, field]) => [name, mapStrings(field, replace)]));
  return value;
};

/** The same, where replacing takes a while (storing a file): one string at a time, in order. */
export const mapStringsInOrder = async (
  value: unknown,
  replace: (text: string) => Promise<string>,
): Promise<unknown> => {
  if (typeof value === 'string') return replace(value);
  if (Array.isArray(value)) {
    const items: unknown[] = [];
    for (const item of value) items.push(await mapStringsInOrder(item, replace));
    return items;
  }
  if (value !== null && typeof value === 'object') {
    const fields: Record<string, unknown> = {};
    for (const [name, field] of Object.entries(value)) fields[name] = await mapStringsInOrder(field, replace);
    return fields;
  }
  return value;
};

/**
 * The secret in a prediction's file URLs, made from its stream key: whoever holds an output's
 * URL can read that file (as a webhook receiver or a browser must, with no token) but cannot
 * open the prediction's stream with it.
 */
export const outputFilesKey = (streamKey: string): string =>
  createHmac('sha256', streamKey).update('prognoz output files').digest('base64url').slice(0, 32);

/** Whether any string in `value` satisfies `test`: most outputs hold no file, and are passed through untouched. */
export const someString = (value: unknown, test: (text: string) => boolean): boolean => {
  if (typeof value === 'string') return test(value);
  if (Array.isArray(value)) return value.some((item) => someString(item, test));
  if (value !== null && typeof value === 'object') return Object.values(value).some((field) => someString(field, test));
  return false;
};

export const isFileReference = (text: string): boolean => text.startsWith(FILE_REFERENCE);
/** Whether a text (a streamed piece's JSON) holds a reference anywhere inside. */
export const mentionsFileReference = (text: string): boolean => text.includes(FILE_REFERENCE);
export const isDataUrl = (text: string): boolean => /^data:/i.test(text);
