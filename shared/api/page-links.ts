import * as z from '../zod-mini.ts';
import { PrognozError } from '../domain/errors.ts';
import type { Page, PageRequest } from '../domain/page.ts';

/**
 * The `next` and `previous` links of the lists that page by position (files, a model's examples),
 * in Replicate's page shape: absolute addresses whose `cursor` is opaque (base64url of its JSON).
 */

const cursorShape = z.strictObject({
  toward: z.enum(['next', 'previous']),
  position: z.string().check(z.maxLength(512)),
});

export type PageFrom = NonNullable<PageRequest['from']>;

/** A cursor's JSON as an opaque, URL-safe string (base64url), as every list's `next` and `previous` carry it. */
export const encodeOpaqueCursor = (cursor: unknown): string =>
  Buffer.from(JSON.stringify(cursor)).toString('base64url');

/** What `encodeOpaqueCursor` made, read back and checked against `shape`; null for anything else. */
export const decodeOpaqueCursor = <T>(raw: string, shape: z.ZodMiniType<T>): T | null => {
  if (!/^[A-Za-z0-9_-]+$/.test(raw)) return null;
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  const parsed = shape.safeParse(json);
  return parsed.success ? parsed.data : null;
};

export const encodePageCursor = (from: PageFrom): string => encodeOpaqueCursor(from);

/** The cursor a link carried, if it is one this API gave out with a position of `positionPattern`; else null. */
export const decodePageCursor = (raw: string, positionPattern: RegExp): PageFrom | null => {
  if (raw.length > 1024) return null;
  const from = decodeOpaqueCursor(raw, cursorShape);
  return from !== null && positionPattern.test(from.position) ? from : null;
};

/** Why a cursor is refused, on every list that pages by one. */
export const FOREIGN_CURSOR = 'cursor is not one this API gave out: follow the next and previous links as they are';

/**
 * The page a request asks for: `limit` items from the position its `cursor` carries (of
 * `positionPattern`), or from the list's start without one. A cursor this API did not give is
 * refused, 400 `invalid_query`.
 */
export const pageRequestOf = (cursor: string | undefined, positionPattern: RegExp, limit: number): PageRequest => {
  if (cursor === undefined) return { limit };
  const from = decodePageCursor(cursor, positionPattern);
  if (from === null) throw new PrognozError('invalid_query', FOREIGN_CURSOR);
  return { limit, from };
};

/** The page's links: `address` with the cursor of the page beside it. */
export const pageLinks = (
  address: string,
  page: Pick<Page<unknown>, 'next' | 'previous'>,
): { readonly next: string | null; readonly previous: string | null } => {
  const link = (toward: PageFrom['toward'], position: string | null) =>
    position === null ? null : `${address}?cursor=${encodePageCursor({ toward, position })}`;
  return { next: link('next', page.next), previous: link('previous', page.previous) };
};
