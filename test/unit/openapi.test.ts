import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HTTP_STATUS } from '../../shared/api/http-status.ts';
import { committedDocumentText } from '../../shared/api/openapi/committed.ts';
import { componentNameOf } from '../../shared/api/openapi/document.ts';
import { ROUTES, SYNC_WAIT, isPublicRoute } from '../../shared/api/routes.ts';
import { ERROR_CODES } from '../../shared/domain/errors.ts';
import { modelsOf, repositoryCatalog } from '../../shared/catalog/model-catalog.ts';
import { validateInput } from '../../shared/catalog/registry.ts';

interface Operation {
  operationId: string;
  security?: unknown[];
  parameters?: { name: string; in: string; schema: { pattern?: string } }[];
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: { $ref?: string } }> }>;
}
interface Document {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, { post: Operation }>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, { type: string; scheme: string }> };
}

const committedText = readFileSync(path.resolve(import.meta.dirname, '..', '..', 'openapi.json'), 'utf8');
const document = JSON.parse(committedText) as Document;
/** The committed document's models: the repository's (a test run may add others to the catalog). */
const repositoryModels = () => modelsOf(repositoryCatalog());
const METHODS = new Set(['get', 'post', 'delete', 'put', 'patch', 'query']);
const operationsOf = (item: Record<string, Operation>): Operation[] =>
  Object.entries(item)
    .filter(([key]) => METHODS.has(key))
    .map(([, operation]) => operation);
const operationOf = (method: string, routePath: string): Operation | undefined =>
  document.paths[routePath.slice('/api/v1'.length)]?.[method.toLowerCase()];

describe('the OpenAPI document', () => {
  it('is committed as generated: run `npm run openapi` after changing the API', () => {
    expect(
      committedText === committedDocumentText(),
      'openapi.json is stale: run `npm run openapi` and commit it',
    ).toBe(true);
  });

  it('is OpenAPI 3.2 (for its `query` operations) with the bearer-token scheme, which every route but the public ones requires', () => {
    expect(document.openapi).toMatch(/^3\.2\./);
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const route of ROUTES) {
      const operation = operationOf(route.method, route.path);
      expect(operation, `${route.method} ${route.path}`).toBeDefined();
      if (isPublicRoute(route)) expect(operation?.security).toEqual([]);
      else expect(operation?.security).toBeUndefined();
    }
  });

  it('describes every route with one operation id each, and nothing that is not a route or a model', () => {
    const ids = Object.values(document.paths).flatMap((item) =>
      operationsOf(item).map((operation) => operation.operationId),
    );
    expect(new Set(ids).size).toBe(ids.length);
    const modelPaths = repositoryModels().map((model) => `/${model.id}`);
    const routePaths = ROUTES.map((route) => route.path.slice('/api/v1'.length));
    expect(Object.keys(document.paths).sort()).toEqual([...new Set([...routePaths, ...modelPaths])].sort());
  });

  it('gives each model its own create with its input schema, and its input and output as components', () => {
    for (const model of repositoryModels()) {
      const name = componentNameOf(model.id);
      expect(document.components.schemas[`${name}Input`], model.id).toBeDefined();
      expect(document.components.schemas[`${name}Output`], model.id).toBeDefined();
      const create = document.paths[`/${model.id}`]?.post;
      for (const type of ['application/json', 'application/x-www-form-urlencoded']) {
        expect(create?.requestBody?.content[type]?.schema).toEqual({ $ref: `#/components/schemas/${name}Input` });
      }
      expect(create?.responses['201']?.content?.['application/json']?.schema).toEqual({
        $ref: '#/components/schemas/Prediction',
      });
      // Its request example (the manifest's) is an input the model takes.
      if (model.example) expect(validateInput(model, { ...model.example }).ok, model.id).toBe(true);
    }
    expect(repositoryModels().every((model) => model.example !== undefined)).toBe(true);
  });

  it('documents each error status with the one error shape and the codes that come with it', () => {
    for (const item of Object.values(document.paths)) {
      for (const operation of operationsOf(item)) {
        for (const [status, response] of Object.entries(operation.responses).filter(
          ([status]) => Number(status) >= 400,
        )) {
          const codes = [...(response.description.split(':')[1] ?? '').matchAll(/`(\w+)`/g)].map((match) => match[1]);
          expect(codes.length, `${operation.operationId} ${status}`).toBeGreaterThan(0);
          for (const code of codes) {
            expect(ERROR_CODES).toContain(code);
            expect(HTTP_STATUS[code as keyof typeof HTTP_STATUS]).toBe(Number(status));
          }
          expect(response.content?.['application/json']?.schema.$ref).toMatch(
            /^#\/components\/schemas\/(Error|PredictionFinishedError)$/,
          );
        }
      }
    }
    // Every authenticated operation may be refused its token, or rate limited.
    expect(Object.keys(operationOf('GET', '/api/v1/predictions/{id}')?.responses ?? {})).toEqual(
      expect.arrayContaining(['200', '400', '401', '404', '429', '500']),
    );
  });

  it('takes the headers a create accepts, with the sync wait bounded as the handler bounds it', () => {
    const create = operationOf('POST', '/api/v1/{company}/{model}');
    const headers = (create?.parameters ?? [])
      .filter((parameter) => parameter.in === 'header')
      .map((parameter) => parameter.name.toLowerCase());
    expect(headers).toEqual(
      expect.arrayContaining([
        'prefer',
        'request-timeout',
        'webhook-url',
        'x-webhook-url',
        'idempotency-key',
        'cancel-after',
        'x-request-id',
        'x-log-request',
      ]),
    );
    const timeout = new RegExp(
      create?.parameters?.find((parameter) => parameter.name === 'Request-Timeout')?.schema.pattern ?? '$^',
    );
    expect(timeout.test(String(SYNC_WAIT.maxSeconds))).toBe(true);
    expect(timeout.test(String(SYNC_WAIT.maxSeconds + 1))).toBe(false);
    expect(timeout.test('0')).toBe(false);
    expect(Object.keys(create?.requestBody?.content ?? {}).sort()).toEqual([
      'application/json',
      'application/x-www-form-urlencoded',
    ]);
  });

  it('describes webhook deliveries with their signing headers', () => {
    const delivery = document.webhooks.prediction?.post;
    const headers = (delivery?.parameters ?? []).map((parameter) => parameter.name);
    expect(headers).toEqual(
      expect.arrayContaining([
        'x-webhook-id',
        'x-webhook-timestamp',
        'x-webhook-signature',
        'webhook-id',
        'webhook-timestamp',
        'webhook-signature',
      ]),
    );
    expect(delivery?.requestBody?.content['application/json']?.schema).toEqual({
      $ref: '#/components/schemas/PredictionWebhook',
    });
    expect(JSON.stringify(document.components.schemas.PredictionWebhook)).not.toContain('"cost"');
  });
});
