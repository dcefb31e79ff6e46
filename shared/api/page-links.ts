import * as z from 'zod';
import type { Page, PageRequest } from '../domain/page.ts';

/**
 * The `next` and `previous` links of the lists that page by position (files, a model's examples),
 * in Replicate's page shape: absolute addresses whose `cursor` is opaque (base64url of its JSON).
 */

const cursorShape = z.strictObject({ toward: z.enum(['next', 'previous']), position: z.string().max(512) });

export type PageFrom = NonNullable<PageRequest['from']>;

export const encodePageCursor = (from: PageFrom): string => Buffer.from(JSON.stringify(from)).toString('base64url');

/** The cursor a link carried, if it is one this API gave out with a position of `positionPattern`; else null. */
export const decodePageCursor = (raw: string, positionPattern: RegExp): PageFrom | null => {
  if (!/^[A-Za-z0-9_-]{1,1024}$/.test(raw)) return null;
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  const parsed = cursorShape.safeParse(json);
  return parsed.success && positionPattern.test(parsed.data.position) ? parsed.data : null;
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

/** A page of `item` in Replicate's shape, for the OpenAPI document. */
export const pageSchema = <T extends z.ZodType>(item: T, id: string, order: string) =>
  z
    .object({
      results: z.array(item).describe(order),
      next: z.url().nullable().describe('The next page, or null at the end.'),
      previous: z.url().nullable().describe('The page before, or null at the start.'),
    })
    .meta({ id });
