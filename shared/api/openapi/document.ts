import * as z from 'zod';
import {
  createDocument,
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathsObject,
  type ZodOpenApiResponsesObject,
} from 'zod-openapi';
import type { ErrorCode } from '../../domain/errors.ts';
import type { ModelDefinition } from '../../catalog/definition.ts';
import { EDGE_LIMITS_TEXT } from '../edge-limits.ts';
import { errorBodySchema } from '../error-body-schema.ts';
import { HTTP_STATUS } from '../http-status.ts';
import { createHeadersSchema, authenticatedHeadersSchema } from './request-parameters.ts';
import { TAGS, type OperationSpec } from './operation-spec.ts';
import { OPERATIONS, specCreateBody } from './operations.ts';
import { webhookPathItem } from './webhooks.ts';

/**
 * Where the routes of the table sit, and so the server the document names by default: relative,
 * so the committed copy names no host. Paths in the document are relative to it.
 */
const API_BASE_PATH = '/api/v1';

/** What every authenticated request may be answered besides its route's own errors. */
const AUTHENTICATED_ERRORS: readonly ErrorCode[] = [
  'malformed_authorization',
  'missing_token',
  'invalid_token',
  'rate_limited',
  'internal_error',
];
const PUBLIC_ERRORS: readonly ErrorCode[] = ['internal_error'];
/** What the edge answers to any request before its route sees it (shared/api/edge-limits.ts). */
const EDGE_ERRORS: readonly ErrorCode[] = ['malformed_request', 'request_timeout', 'request_headers_too_large'];

const requestIdHeader = z
  .string()
  .describe("The request id: the caller's `x-request-id` when usable, else a new UUID.")
  .meta({ header: { id: 'RequestId' } });
const retryAfterHeader = z
  .string()
  .regex(/^\d+$/)
  .describe('Seconds to wait before retrying.')
  .meta({ header: { id: 'RetryAfter' } });

const errorResponses = (
  codes: readonly ErrorCode[],
  bodies: Partial<Record<ErrorCode, z.ZodType>> = {},
): ZodOpenApiResponsesObject => {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes))
    byStatus.set(HTTP_STATUS[code], [...(byStatus.get(HTTP_STATUS[code]) ?? []), code]);
  const responses: ZodOpenApiResponsesObject = {};
  for (const [status, statusCodes] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[`${status}` as `4${string}`] = {
      description: `The error's \`code\`: ${statusCodes.map((code) => `\`${code}\``).join(', ')}.`,
      headers: z.object({
        'x-request-id': requestIdHeader,
        ...(statusCodes.includes('rate_limited') ? { 'retry-after': retryAfterHeader } : {}),
        ...(statusCodes.includes('method_not_allowed')
          ? { allow: z.string().describe('The methods this path takes.') }
          : {}),
      }),
      content: {
        'application/json': {
          schema: statusCodes.map((code) => bodies[code]).find((body) => body !== undefined) ?? errorBodySchema,
        },
      },
    };
  }
  return responses;
};

const operationOf = (spec: OperationSpec): ZodOpenApiOperationObject => {
  const { success } = spec;
  const contentType = success.contentType ?? 'application/json';
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    tags: [spec.tag],
    ...(spec.public ? { security: [] } : {}),
    ...(spec.requestParams ? { requestParams: spec.requestParams } : {}),
    ...(spec.requestBody ? { requestBody: spec.requestBody } : {}),
    responses: {
      [`${success.status}`]: {
        description: success.description,
        headers: z.object({ 'x-request-id': requestIdHeader, ...success.headers?.shape }),
        ...(success.schema ? { content: { [contentType]: { schema: success.schema } } } : {}),
      },
      // A path parameter such as `..` or `%zz` leads to no route at all.
      ...errorResponses(
        [
          ...spec.errors,
          ...(spec.requestParams?.path ? ['route_not_found' as const] : []),
          ...(spec.public ? PUBLIC_ERRORS : AUTHENTICATED_ERRORS),
          ...EDGE_ERRORS,
          ...(spec.requestBody ? ['payload_too_large' as const] : []),
        ],
        spec.errorBodies,
      ),
    },
  };
};

/** `openai/whisper-base` → `OpenaiWhisperBase`: a model's name in component ids and operation ids. */
export const componentNameOf = (modelId: string): string =>
  modelId
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => `${part.slice(0, 1).toUpperCase()}${part.slice(1)}`)
    .join('');

/** Each model's own path, with its input as a component (its output is one too: `openApiDocument`). */
const modelPaths = (models: readonly ModelDefinition[]): ZodOpenApiPathsObject =>
  Object.fromEntries(
    models.map((model) => {
      const name = componentNameOf(model.id);
      const input = model.input.check(z.meta({ id: `${name}Input`, description: `The input of ${model.id}.` }));
      const createSpec = OPERATIONS['POST /api/v1/{company}/{model}'];
      const getSpec = OPERATIONS['GET /api/v1/{company}/{model}'];
      return [
        `/${model.id}`,
        {
          summary: model.id,
          description: model.description,
          // The templated routes' operations on the model's own path: no path parameters.
          post: operationOf({
            ...createSpec,
            operationId: `create${name}Prediction`,
            summary: `Run ${model.id}`,
            description: `${model.description} ${model.pricePerSecond} ₽ a second.`,
            tag: 'Model catalog',
            requestParams: { header: createHeadersSchema },
            requestBody: specCreateBody(input, model.example),
          }),
          get: operationOf({
            ...getSpec,
            operationId: `get${name}Model`,
            summary: `${model.id}: price and schema`,
            requestParams: { header: authenticatedHeadersSchema },
          }),
        },
      ];
    }),
  );

export interface DocumentOptions {
  readonly models: readonly ModelDefinition[];
  /** The API's base address: absolute when served, relative in the committed copy. */
  readonly server?: string;
  readonly version: string;
}

/** The OpenAPI 3.2 document of the whole API, from the zod schemas the handlers use. */
export const openApiDocument = (options: DocumentOptions) => {
  const paths: ZodOpenApiPathsObject = {};
  // In the operations' own order (the page's), which names every route of the table once.
  for (const [key, spec] of Object.entries(OPERATIONS)) {
    const [method = '', routePath = ''] = key.split(' ');
    const path = routePath.slice(API_BASE_PATH.length);
    paths[path] = { ...paths[path], [method.toLowerCase()]: operationOf(spec) };
  }
  const outputs = Object.fromEntries(
    options.models.map((model) => [`${componentNameOf(model.id)}Output`, model.output]),
  );
  return createDocument({
    // 3.2: its `query` operations (QUERY /search, QUERY /models).
    openapi: '3.2.0',
    info: {
      title: 'prognoz',
      version: options.version,
      description: `Run a model on an input and get a prediction: poll it, wait for it, cancel it, or receive it by a signed webhook. Accounts pay per second of model time, in roubles.\n\n**Limits.** ${EDGE_LIMITS_TEXT}`,
    },
    servers: [{ url: options.server ?? API_BASE_PATH }],
    security: [{ bearerAuth: [] }],
    tags: [...TAGS],
    paths: { ...paths, ...modelPaths(options.models) },
    webhooks: { prediction: webhookPathItem },
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API token: `Authorization: Bearer <API_TOKEN>`.',
        },
      },
      schemas: outputs,
    },
  });
};
