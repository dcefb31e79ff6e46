import * as z from 'zod';

/** A page of `item` in Replicate's shape, for the OpenAPI document. */
export const pageSchema = <T extends z.ZodType>(item: T, id: string, order: string) =>
  z
    .object({
      results: z.array(item).describe(order),
      next: z.url().nullable().describe('The next page, or null at the end.'),
      previous: z.url().nullable().describe('The page before, or null at the start.'),
    })
    .meta({ id });
