import * as z from 'zod';
import type { ZodOpenApiRequestBodyObject } from 'zod-openapi';
import {
  collectionListSchema,
  collectionSchema,
  exampleListSchema,
  modelPageSchema,
  searchResultSchema,
} from '../catalog-views.ts';
import { fileListSchema } from '../file-view-schema.ts';
import { authenticatedHeadersSchema } from './request-parameters.ts';
import type { OperationSpec, RouteKey } from './operation-spec.ts';
import { fileId, modelPath } from './path-params.ts';

/**
 * The rest of Replicate's read API (interface: Compatibility): the caller's files and their bytes,
 * a model's README and examples, collections, and search.
 */

const cursorQuery = z.object({
  cursor: z.string().optional().describe('Where a page starts: take it from `next` or `previous` as it is.'),
});
const searchQuery = z.object({
  query: z
    .string()
    .min(1)
    .describe('The words to look for.')
    .meta({ examples: ['speech'] }),
  limit: z.int().min(1).max(50).optional().describe('The most models to answer (default 20).'),
});
const searchBody: ZodOpenApiRequestBodyObject = {
  required: false,
  description:
    "The words to look for, as text (Replicate's Python client sends them so), or as a JSON string (its JavaScript client's).",
  content: { 'text/plain': { schema: z.string().meta({ examples: ['transcribe speech'] }) } },
};

type ReadApiKey = Extract<
  RouteKey,
  | 'GET /api/v1/files'
  | 'GET /api/v1/files/{id}/download'
  | 'GET /api/v1/models/{company}/{model}/readme'
  | 'GET /api/v1/models/{company}/{model}/examples'
  | 'GET /api/v1/collections'
  | 'GET /api/v1/collections/{slug}'
  | 'GET /api/v1/search'
  | 'QUERY /api/v1/search'
  | 'QUERY /api/v1/models'
>;

export const READ_API_OPERATIONS: Readonly<Record<ReadApiKey, OperationSpec>> = {
  'GET /api/v1/files': {
    operationId: 'listFiles',
    summary: "The account's files",
    description:
      'The files it uploaded that have not expired, newest first, 100 a page, each with a fresh download address.',
    tag: 'Files',
    requestParams: { query: cursorQuery, header: authenticatedHeadersSchema },
    success: { status: 200, description: 'A page of files.', schema: fileListSchema },
    errors: ['invalid_query'],
  },
  'GET /api/v1/files/{id}/download': {
    operationId: 'downloadFile',
    summary: "A file's bytes",
    description: 'The bytes, with the content type they were uploaded with, as an attachment under their name.',
    tag: 'Files',
    requestParams: { path: fileId, header: authenticatedHeadersSchema },
    success: {
      status: 200,
      description: 'The bytes.',
      contentType: '*/*',
      schema: z.string().meta({ format: 'binary' }),
    },
    errors: ['file_not_found'],
  },
  'GET /api/v1/models/{company}/{model}/readme': {
    operationId: 'getModelReadme',
    summary: "A model's README",
    description:
      "Markdown: the README.md of the model's predictor folder, or, for a model without one, a page made from its description, price and inputs.",
    tag: 'Model catalog',
    requestParams: { path: modelPath, header: authenticatedHeadersSchema },
    success: { status: 200, description: 'The README.', contentType: 'text/markdown', schema: z.string() },
    errors: ['model_not_found'],
  },
  'GET /api/v1/models/{company}/{model}/examples': {
    operationId: 'listModelExamples',
    summary: "A model's examples",
    description:
      "Predictions the operator marked as examples (`npx prognoz models examples add`), 20 a page: copies made when marked, without their owner's logs, webhook, cost or URLs.",
    tag: 'Model catalog',
    requestParams: { path: modelPath, query: cursorQuery, header: authenticatedHeadersSchema },
    success: { status: 200, description: 'A page of examples.', schema: exampleListSchema },
    errors: ['model_not_found', 'invalid_query'],
  },
  'GET /api/v1/collections': {
    operationId: 'listCollections',
    summary: 'Collections of models',
    description: "Models grouped by purpose, as the deployment's manifest declares them.",
    tag: 'Model catalog',
    requestParams: { header: authenticatedHeadersSchema },
    success: { status: 200, description: 'Every collection, as one page.', schema: collectionListSchema },
    errors: [],
  },
  'GET /api/v1/collections/{slug}': {
    operationId: 'getCollection',
    summary: 'A collection, with its models',
    tag: 'Model catalog',
    requestParams: {
      path: z.object({
        slug: z
          .string()
          .describe("The collection's slug.")
          .meta({ examples: ['speech-to-text'] }),
      }),
      header: authenticatedHeadersSchema,
    },
    success: { status: 200, description: 'The collection.', schema: collectionSchema },
    errors: ['collection_not_found'],
  },
  'GET /api/v1/search': {
    operationId: 'search',
    summary: 'Search models and collections',
    description:
      "Models with every word of the query in their id, description, README or collections' names, best first; collections with every word in their own.",
    tag: 'Model catalog',
    requestParams: { query: searchQuery, header: authenticatedHeadersSchema },
    success: { status: 200, description: 'What matched.', schema: searchResultSchema },
    errors: ['invalid_query'],
  },
  'QUERY /api/v1/search': {
    operationId: 'searchByQuery',
    summary: 'Search models and collections, the query in the body',
    tag: 'Model catalog',
    requestParams: { header: authenticatedHeadersSchema },
    requestBody: searchBody,
    success: { status: 200, description: 'What matched.', schema: searchResultSchema },
    errors: [],
  },
  'QUERY /api/v1/models': {
    operationId: 'searchModels',
    summary: 'Search models',
    description:
      "What Replicate's clients send for `models.search`: every model that matches, best first, as one page.",
    tag: 'Model catalog',
    requestParams: { header: authenticatedHeadersSchema },
    requestBody: searchBody,
    success: { status: 200, description: 'The models that matched.', schema: modelPageSchema },
    errors: [],
  },
};
