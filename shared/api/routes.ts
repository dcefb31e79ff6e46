/**
 * The API's routes (interface: Routes) and the source file that handles each, shared by the
 * CDK API and the local front.
 */
export const ROUTES = [
  {
    method: 'POST',
    path: '/api/v1/predictions/{id}/cancel',
    handler: 'cancel-prediction',
    entry: 'functions/http/cancel-prediction.ts',
  },
  {
    method: 'GET',
    path: '/api/v1/predictions/{id}',
    handler: 'get-prediction',
    entry: 'functions/http/get-prediction.ts',
  },
  {
    method: 'GET',
    path: '/api/v1/predictions/{id}/webhooks',
    handler: 'list-webhook-deliveries',
    entry: 'functions/http/webhook-deliveries.ts',
  },
  {
    method: 'POST',
    path: '/api/v1/predictions/{id}/webhooks/redeliver',
    handler: 'redeliver-webhook',
    entry: 'functions/http/redeliver-webhook.ts',
  },
  { method: 'GET', path: '/api/v1/account', handler: 'account', entry: 'functions/http/account.ts' },
  // Account settings and token self-service, for the console: an owner's sign-in only, never an API token
  // (interface: Owners).
  { method: 'PATCH', path: '/api/v1/account', handler: 'account', entry: 'functions/http/account.ts' },
  {
    method: 'GET',
    path: '/api/v1/account/tokens',
    handler: 'account-tokens',
    entry: 'functions/http/account-tokens.ts',
  },
  {
    method: 'POST',
    path: '/api/v1/account/tokens',
    handler: 'account-tokens',
    entry: 'functions/http/account-tokens.ts',
  },
  {
    method: 'DELETE',
    path: '/api/v1/account/tokens/{id}',
    handler: 'account-tokens',
    entry: 'functions/http/account-tokens.ts',
  },
  {
    method: 'GET',
    path: '/api/v1/webhooks/default/secret',
    handler: 'get-webhook-secret',
    entry: 'functions/http/webhook-secret.ts',
  },
  {
    method: 'POST',
    path: '/api/v1/webhooks/default/secret/rotate',
    handler: 'rotate-webhook-secret',
    entry: 'functions/http/rotate-webhook-secret.ts',
  },
  {
    method: 'GET',
    path: '/api/v1/webhooks/default/deliveries',
    handler: 'list-account-deliveries',
    entry: 'functions/http/account-deliveries.ts',
  },
  { method: 'GET', path: '/api/v1/models', handler: 'list-models', entry: 'functions/http/list-models.ts' },
  // Replicate's model, version and hardware objects (interface: Compatibility). Models come from
  // the manifest: these routes only read, and any other method is answered 405.
  {
    method: 'GET',
    path: '/api/v1/models/{company}/{model}',
    handler: 'replicate-catalog',
    entry: 'functions/http/replicate-catalog.ts',
  },
  {
    method: 'GET',
    path: '/api/v1/models/{company}/{model}/versions',
    handler: 'replicate-catalog',
    entry: 'functions/http/replicate-catalog.ts',
  },
  // A version's id is its model's, `company/model`: two segments.
  {
    method: 'GET',
    path: '/api/v1/models/{company}/{model}/versions/{versionCompany}/{versionModel}',
    handler: 'replicate-catalog',
    entry: 'functions/http/replicate-catalog.ts',
  },
  {
    method: 'GET',
    path: '/api/v1/models/{company}/{model}/readme',
    handler: 'replicate-catalog',
    entry: 'functions/http/replicate-catalog.ts',
  },
  {
    method: 'GET',
    path: '/api/v1/models/{company}/{model}/examples',
    handler: 'replicate-catalog',
    entry: 'functions/http/replicate-catalog.ts',
  },
  {
    method: 'GET',
    path: '/api/v1/hardware',
    handler: 'replicate-catalog',
    entry: 'functions/http/replicate-catalog.ts',
  },
  {
    method: 'GET',
    path: '/api/v1/collections',
    handler: 'replicate-catalog',
    entry: 'functions/http/replicate-catalog.ts',
  },
  {
    method: 'GET',
    path: '/api/v1/collections/{slug}',
    handler: 'replicate-catalog',
    entry: 'functions/http/replicate-catalog.ts',
  },
  // Search by words: Replicate's `GET /search`, and `QUERY` (RFC 9110's safe method with a body) on it and on
  // `/models`, as Replicate's clients send `models.search`. On AWS a QUERY reaches its function through the
  // resource's ANY method (API Gateway has no QUERY of its own); the function answers any other method 405.
  { method: 'GET', path: '/api/v1/search', handler: 'replicate-catalog', entry: 'functions/http/replicate-catalog.ts' },
  {
    method: 'QUERY',
    path: '/api/v1/search',
    handler: 'replicate-catalog',
    entry: 'functions/http/replicate-catalog.ts',
  },
  {
    method: 'QUERY',
    path: '/api/v1/models',
    handler: 'replicate-catalog',
    entry: 'functions/http/replicate-catalog.ts',
  },
  // Each model's fleet is a deployment of the model's name (interface: Compatibility).
  {
    method: 'GET',
    path: '/api/v1/deployments',
    handler: 'deployments',
    entry: 'functions/http/deployments.ts',
  },
  {
    method: 'GET',
    path: '/api/v1/deployments/{company}/{model}',
    handler: 'deployments',
    entry: 'functions/http/deployments.ts',
  },
  {
    method: 'PATCH',
    path: '/api/v1/deployments/{company}/{model}',
    handler: 'deployments',
    entry: 'functions/http/deployments.ts',
  },
  {
    method: 'POST',
    path: '/api/v1/deployments/{company}/{model}/predictions',
    handler: 'create-prediction',
    entry: 'functions/http/create-prediction.ts',
    streaming: true,
  },
  { method: 'GET', path: '/api/v1/{company}/{model}', handler: 'get-model', entry: 'functions/http/get-model.ts' },
  // Streamed: a synchronous create may wait 30 s, past API Gateway's 29 s buffered limit.
  {
    method: 'POST',
    path: '/api/v1/{company}/{model}',
    handler: 'create-prediction',
    entry: 'functions/http/create-prediction.ts',
    streaming: true,
  },
  // Beside the interface's routes (docs/interface.md), what users of Replicate-like services expect (interface: Compatibility).
  {
    method: 'GET',
    path: '/api/v1/predictions',
    handler: 'list-predictions',
    entry: 'functions/http/list-predictions.ts',
  },
  {
    method: 'POST',
    path: '/api/v1/predictions',
    handler: 'create-prediction',
    entry: 'functions/http/create-prediction.ts',
    streaming: true,
  },
  {
    method: 'POST',
    path: '/api/v1/models/{company}/{model}/predictions',
    handler: 'create-prediction',
    entry: 'functions/http/create-prediction.ts',
    streaming: true,
  },
  // Server-sent events for as long as the prediction runs: streamed, like the create route.
  // Public: clients (Replicate's among them) open it without their token; the URL carries the prediction's stream key.
  {
    method: 'GET',
    path: '/api/v1/predictions/{id}/stream',
    handler: 'stream-prediction',
    entry: 'functions/http/stream-prediction.ts',
    streaming: true,
    public: true,
  },
  // A file a model returned: streamed (files reach 100 MiB, past a buffered answer's 6 MB). Public, as the stream:
  // the URL carries the prediction's files key (a browser, a webhook receiver or Replicate's FileOutput sends no token).
  {
    method: 'GET',
    path: '/api/v1/predictions/{id}/output/{claim}/{file}',
    handler: 'get-output-file',
    entry: 'functions/http/get-output-file.ts',
    streaming: true,
    public: true,
  },
  { method: 'POST', path: '/api/v1/files', handler: 'upload-file', entry: 'functions/http/upload-file.ts' },
  // Streamed, for the bytes (up to 100 MiB), as an output file is.
  {
    method: 'GET',
    path: '/api/v1/files',
    handler: 'read-files',
    entry: 'functions/http/read-files.ts',
    streaming: true,
  },
  {
    method: 'GET',
    path: '/api/v1/files/{id}',
    handler: 'read-files',
    entry: 'functions/http/read-files.ts',
    streaming: true,
  },
  {
    method: 'GET',
    path: '/api/v1/files/{id}/download',
    handler: 'read-files',
    entry: 'functions/http/read-files.ts',
    streaming: true,
  },
  { method: 'DELETE', path: '/api/v1/files/{id}', handler: 'delete-file', entry: 'functions/http/delete-file.ts' },
  // This API's OpenAPI document: public, as API references are.
  {
    method: 'GET',
    path: '/api/v1/openapi.json',
    handler: 'get-openapi',
    entry: 'functions/http/get-openapi.ts',
    public: true,
  },
] as const;

export type Route = (typeof ROUTES)[number];

/**
 * Synchronous waits (Prefer: SYNC, Request-Timeout): the default and longest wait, and the time
 * the streamed create route is given on AWS (the wait plus room to create and answer).
 */
export const SYNC_WAIT = {
  defaultSeconds: 30,
  maxSeconds: 60,
  handlerTimeoutSeconds: 90,
  integrationTimeoutSeconds: 120,
} as const;

/** A prediction's event stream lasts as long as Lambda lets a function run; then clients reconnect. */
export const EVENT_STREAM = { handlerTimeoutSeconds: 900, integrationTimeoutSeconds: 900, memoryMiB: 128 } as const;

/** How long API Gateway waits for a streamed route's answer. */
export const integrationTimeoutOf = (handler: HandlerName): number =>
  handler === 'stream-prediction' ? EVENT_STREAM.integrationTimeoutSeconds : SYNC_WAIT.integrationTimeoutSeconds;

export const isStreamingRoute = (handler: HandlerName): boolean =>
  ROUTES.some((route) => route.handler === handler && 'streaming' in route && route.streaming);
export type HandlerName = Route['handler'];

/** Routes API Gateway opens without the token authorizer (their handlers check what the URL carries). */
export const isPublicRoute = (route: Route): boolean => 'public' in route && route.public;

export type RouteMatch =
  | { readonly kind: 'found'; readonly route: Route; readonly pathParameters: Record<string, string> }
  | { readonly kind: 'method_not_allowed'; readonly allow: string[] }
  | { readonly kind: 'not_found' };

/** A malformed escape (`%zz`) matches no route, as API Gateway finds none for it. */
const decodeOrNull = (segment: string): string | null => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
};

const templateMatch = (template: string, path: string): Record<string, string> | null => {
  const want = template.split('/');
  const got = path.replace(/\/+$/, '').split('/');
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (const [i, part] of want.entries()) {
    const value = got[i] ?? '';
    if (part.startsWith('{')) {
      if (value === '') return null;
      const decoded = decodeOrNull(value);
      if (decoded === null) return null;
      params[part.slice(1, -1)] = decoded;
    } else if (part !== value) return null;
  }
  return params;
};

/** Literal segments win over parameters, as in API Gateway: `/predictions/x` is never a model. */
const specificity = (template: string): number => template.split('/').filter((part) => !part.startsWith('{')).length;

export const matchRoute = (method: string, path: string): RouteMatch => {
  const candidates = ROUTES.map((route) => ({ route, params: templateMatch(route.path, path) }))
    .filter((c): c is { route: Route; params: Record<string, string> } => c.params !== null)
    .sort((a, b) => specificity(b.route.path) - specificity(a.route.path));
  const best = candidates[0];
  if (!best) return { kind: 'not_found' };
  const sameResource = candidates.filter((c) => c.route.path === best.route.path);
  const hit = sameResource.find((c) => c.route.method === method.toUpperCase());
  if (hit) return { kind: 'found', route: hit.route, pathParameters: hit.params };
  return { kind: 'method_not_allowed', allow: sameResource.map((c) => c.route.method) };
};

/** Answers every request no route takes (404, or 405 with Allow). */
export const UNMATCHED_ENTRY = 'functions/http/unmatched-route.ts';
export const AUTHORIZER_ENTRY = 'functions/authorizer.ts';

/** The source file of the function that handles `handler`'s routes. */
export const entryOf = (handler: HandlerName): string => {
  const route = ROUTES.find((candidate) => candidate.handler === handler);
  if (!route) throw new Error(`no route is handled by ${handler}`);
  return route.entry;
};
