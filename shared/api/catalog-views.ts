import * as z from 'zod';
import type { Collection } from '../catalog/model-catalog.ts';
import type { ModelHit } from '../catalog/search.ts';
import { pageSchema } from './page-schema.ts';
import { replicateModelSchema, type ReplicateModel } from './replicate-models.ts';

/**
 * Replicate's collection, search and example objects, as its clients read them (interface:
 * Compatibility): `GET /collections`, `GET /collections/{slug}`, `GET|QUERY /search`,
 * `QUERY /models` and `GET /models/{owner}/{name}/examples`.
 */

const collectionFields = {
  slug: z.string().describe('Its address: `GET /collections/{slug}`.'),
  name: z.string(),
  description: z.string(),
};

export const collectionSummarySchema = z
  .object({ ...collectionFields, full_description: z.null() })
  .meta({ id: 'CollectionSummary' });

export const collectionSchema = z
  .object({
    ...collectionFields,
    full_description: z.null(),
    models: z.array(replicateModelSchema).describe('The models it holds that this deployment serves.'),
  })
  .meta({ id: 'Collection' });

export const collectionListSchema = pageSchema(collectionSummarySchema, 'CollectionList', "In the manifest's order.");

export const modelPageSchema = z
  .object({
    results: z.array(replicateModelSchema).describe('Best match first.'),
    next: z.null(),
    previous: z.null(),
  })
  .meta({ id: 'ModelSearchPage' });

export const searchResultSchema = z
  .object({
    query: z.string(),
    models: z
      .array(
        z.object({
          model: replicateModelSchema,
          metadata: z.object({
            generated_description: z.null(),
            tags: z.array(z.string()).describe('The slugs of the collections it is in.'),
            score: z.number().describe('How well it matches: higher is better.'),
          }),
        }),
      )
      .describe('Best match first.'),
    collections: z.array(
      z.object({ ...collectionFields, models: z.array(z.string()).describe('Its models, as `owner/name`.') }),
    ),
    pages: z.array(z.never()).describe('Documentation pages: none are searched.'),
  })
  .meta({ id: 'SearchResult' });

export const exampleSchema = z
  .record(z.string(), z.unknown())
  .describe(
    "A prediction as an example shows it: a copy made when the operator marked it, without its owner's logs, webhook, cost or URLs; secret inputs redacted.",
  )
  .meta({ id: 'ModelExample' });

export const exampleListSchema = pageSchema(exampleSchema, 'ModelExampleList', 'In the order they were marked.');

export const collectionSummary = (collection: Collection): z.infer<typeof collectionSummarySchema> => ({
  slug: collection.slug,
  name: collection.name,
  description: collection.description,
  full_description: null,
});

export const collectionView = (
  collection: Collection,
  models: readonly ReplicateModel[],
): z.infer<typeof collectionSchema> => ({ ...collectionSummary(collection), models: [...models] });

export const searchResult = (
  query: string,
  hits: readonly { readonly hit: ModelHit; readonly model: ReplicateModel }[],
  collections: readonly Collection[],
): z.infer<typeof searchResultSchema> => ({
  query,
  models: hits.map(({ hit, model }) => ({
    model,
    metadata: { generated_description: null, tags: [...hit.tags], score: hit.score },
  })),
  collections: collections.map((collection) => ({
    slug: collection.slug,
    name: collection.name,
    description: collection.description,
    models: collection.models.map((model) => model.id),
  })),
  pages: [],
});
