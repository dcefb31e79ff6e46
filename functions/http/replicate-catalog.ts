import type { APIGatewayProxyEvent } from 'aws-lambda';
import type * as z from 'zod';
import {
  collectionListSchema,
  collectionSummary,
  collectionView,
  exampleListSchema,
  modelPageSchema,
  searchResult,
} from '../../shared/api/catalog-views.ts';
import { readmeOf } from '../../shared/api/model-readme.ts';
import { pageLinks, pageRequestOf } from '../../shared/api/page-links.ts';
import {
  hardwareOf,
  modelVersion,
  replicateModel,
  type modelVersionListSchema,
  type ReplicateModel,
} from '../../shared/api/replicate-models.ts';
import type { ModelDefinition } from '../../shared/catalog/definition.ts';
import { searchCatalog } from '../../shared/catalog/search.ts';
import { PrognozError } from '../../shared/domain/errors.ts';
import { TIMED_POSITION } from '../../shared/domain/page.ts';
import type { ApiDeps } from './deps.ts';
import { requestedModel } from './model-path.ts';
import { accountOf } from './middleware.ts';
import { httpHandler } from './pipeline.ts';
import { apiBaseOf } from './public-url.ts';
import { json } from './respond.ts';
import { unmatchedRequest } from './unmatched.ts';

/** Examples a page lists. */
const EXAMPLE_PAGE_SIZE = 20;
/** `GET /search`'s `limit`, as Replicate bounds it. */
const SEARCH_LIMIT = { default: 20, max: 50 } as const;

/** Replicate's model object for the caller: this month's runs of theirs, and the model's first example. */
const modelObject = async (
  event: APIGatewayProxyEvent,
  deps: ApiDeps,
  model: ModelDefinition,
): Promise<ReplicateModel> => {
  const [runs, examples] = await Promise.all([
    deps.accounts.runsThisMonth(accountOf(event), model.id, deps.clock.now()),
    deps.examples.list(model.id, { limit: 1 }),
  ]);
  return replicateModel(model, apiBaseOf(event), runs, examples.items[0]?.prediction ?? null);
};

/** The words of a QUERY's body: text, or a JSON string (Replicate's JavaScript client sends `"whisper"`). */
const queryOfBody = (event: APIGatewayProxyEvent): string => {
  const raw = event.body ?? '';
  const text = event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'string') return parsed;
    if (parsed !== null && typeof parsed === 'object' && 'query' in parsed && typeof parsed.query === 'string')
      return parsed.query;
  } catch {
    // Plain text, as Replicate's Python client sends it.
  }
  return text;
};

const searchLimitOf = (event: APIGatewayProxyEvent): number => {
  const raw = event.queryStringParameters?.limit;
  if (raw === undefined) return SEARCH_LIMIT.default;
  const limit = /^\d{1,3}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(limit >= 1 && limit <= SEARCH_LIMIT.max))
    throw new PrognozError('invalid_query', `limit must be a whole number from 1 to ${SEARCH_LIMIT.max}`);
  return limit;
};

const queryOf = (event: APIGatewayProxyEvent): string => {
  if (event.httpMethod === 'QUERY') return queryOfBody(event);
  const query = event.queryStringParameters?.query;
  if (query === undefined || query.trim() === '')
    throw new PrognozError('invalid_query', 'query is required: the words to search for (`?query=speech`)');
  return query;
};

/**
 * Replicate's catalog objects, one function for the routes that read them (each a few lines, and
 * a function more each would cost the main stack its resources): the model object with its one
 * version within, its README and examples, the versions (whose id is the model's own,
 * `company/model`, so that a version's path has two segments), the hardware the fleets run on,
 * the collections, and search.
 */
export const handler = httpHandler(async (event, _context, deps) => {
  const { catalog } = deps;
  switch (event.resource) {
    case '/api/v1/models/{company}/{model}':
      return json(200, await modelObject(event, deps, requestedModel(event, catalog)));
    case '/api/v1/models/{company}/{model}/readme':
      return {
        statusCode: 200,
        headers: { 'content-type': 'text/markdown; charset=utf-8' },
        body: readmeOf(requestedModel(event, catalog)),
      };
    case '/api/v1/models/{company}/{model}/examples': {
      const model = requestedModel(event, catalog);
      const request = pageRequestOf(event.queryStringParameters?.cursor, TIMED_POSITION, EXAMPLE_PAGE_SIZE);
      const page = await deps.examples.list(model.id, request);
      return json(200, {
        results: page.items.map((example) => ({ ...example.prediction })),
        ...pageLinks(`${apiBaseOf(event)}/models/${model.id}/examples`, page),
      } satisfies z.infer<typeof exampleListSchema>);
    }
    case '/api/v1/models/{company}/{model}/versions':
      return json(200, {
        results: [modelVersion(requestedModel(event, catalog))],
        next: null,
        previous: null,
      } satisfies z.infer<typeof modelVersionListSchema>);
    case '/api/v1/models/{company}/{model}/versions/{versionCompany}/{versionModel}': {
      const model = requestedModel(event, catalog);
      const version = `${event.pathParameters?.versionCompany ?? ''}/${event.pathParameters?.versionModel ?? ''}`;
      if (version !== model.id)
        throw new PrognozError(
          'version_not_found',
          `${model.id} has one version, ${model.id}; there is no version ${version}`,
        );
      return json(200, modelVersion(model));
    }
    case '/api/v1/hardware':
      return json(200, hardwareOf(catalog.offered));
    case '/api/v1/collections':
      return json(200, {
        results: catalog.collections.map(collectionSummary),
        next: null,
        previous: null,
      } satisfies z.infer<typeof collectionListSchema>);
    case '/api/v1/collections/{slug}': {
      const slug = event.pathParameters?.slug ?? '';
      const collection = catalog.collections.find((candidate) => candidate.slug === slug);
      if (!collection) throw new PrognozError('collection_not_found', `there is no collection ${slug}`);
      const models = await Promise.all(collection.models.map((model) => modelObject(event, deps, model)));
      return json(200, collectionView(collection, models));
    }
    case '/api/v1/search': {
      if (event.httpMethod !== 'GET' && event.httpMethod !== 'QUERY') throw unmatchedRequest(event);
      const query = queryOf(event);
      const found = searchCatalog(catalog, query, searchLimitOf(event));
      const hits = await Promise.all(
        found.models.map(async (hit) => ({ hit, model: await modelObject(event, deps, hit.model) })),
      );
      return json(200, searchResult(query, hits, found.collections));
    }
    case '/api/v1/models': {
      // Reached by every method but GET on AWS (the resource's ANY): only QUERY is this route's.
      if (event.httpMethod !== 'QUERY') throw unmatchedRequest(event);
      const found = searchCatalog(catalog, queryOfBody(event), catalog.offered.length);
      return json(200, {
        results: await Promise.all(found.models.map((hit) => modelObject(event, deps, hit.model))),
        next: null,
        previous: null,
      } satisfies z.infer<typeof modelPageSchema>);
    }
    default:
      throw new PrognozError('route_not_found', `no catalog route ${event.resource}`);
  }
});
