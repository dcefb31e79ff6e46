import { openApiDocument } from '../../shared/api/openapi/document.ts';
import packageJson from '../../package.json' with { type: 'json' };
import { processModelCatalog } from '../model-catalog.ts';
import { unconfiguredHttpHandler } from './pipeline.ts';
import { apiBaseOf } from './public-url.ts';

/** The document depends only on the deployment's models and the address it was reached at. */
const documents = new Map<string, string>();

const documentFor = (server: string): string => {
  const known = documents.get(server);
  if (known !== undefined) return known;
  const body = JSON.stringify(
    openApiDocument({ models: processModelCatalog().offered, server, version: packageJson.version }),
  );
  documents.set(server, body);
  return body;
};

/**
 * GET /api/v1/openapi.json (no token): this deployment's OpenAPI 3.1 document, its models included.
 * It needs nothing of the deployment's resources, so its bundle carries none of their adapters.
 */
export const handler = unconfiguredHttpHandler((event) =>
  Promise.resolve({
    statusCode: 200,
    headers: { 'content-type': 'application/json', 'cache-control': 'public, max-age=300' },
    body: documentFor(apiBaseOf(event)),
  }),
);
