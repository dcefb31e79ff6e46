/**
 * The API's routes (spec §4, DESIGN §6) and the source file that handles each, shared by the
 * CDK API and the local front.
 */
export const ROUTES = [
  { method: 'POST', path: '/api/v1/predictions/{id}/cancel', handler: 'cancel-prediction', entry: 'functions/http/cancel-prediction.ts' },
  { method: 'GET', path: '/api/v1/predictions/{id}', handler: 'get-prediction', entry: 'functions/http/get-prediction.ts' },
  { method: 'GET', path: '/api/v1/predictions/{id}/webhooks', handler: 'list-webhook-deliveries', entry: 'functions/http/webhook-deliveries.ts' },
  { method: 'POST', path: '/api/v1/predictions/{id}/webhooks/redeliver', handler: 'redeliver-webhook', entry: 'functions/http/redeliver-webhook.ts' },
  { method: 'GET', path: '/api/v1/account', handler: 'get-account', entry: 'functions/http/get-account.ts' },
  { method: 'GET', path: '/api/v1/webhooks/default/secret', handler: 'get-webhook-secret', entry: 'functions/http/webhook-secret.ts' },
  { method: 'POST', path: '/api/v1/webhooks/default/secret/rotate', handler: 'rotate-webhook-secret', entry: 'functions/http/rotate-webhook-secret.ts' },
  { method: 'GET', path: '/api/v1/{company}/{model}', handler: 'get-model', entry: 'functions/http/get-model.ts' },
  // Streamed: a synchronous create may wait 30 s, past API Gateway's 29 s buffered limit.
  { method: 'POST', path: '/api/v1/{company}/{model}', handler: 'create-prediction', entry: 'functions/http/create-prediction.ts', streaming: true },
] as const;

export type Route = (typeof ROUTES)[number];

/**
 * Synchronous waits (Prefer: SYNC, Request-Timeout): the default and longest wait, and the time
 * the streamed create route is given on AWS (the wait plus room to create and answer).
 */
export const SYNC_WAIT = { defaultSeconds: 30, maxSeconds: 60, handlerTimeoutSeconds: 90, integrationTimeoutSeconds: 120 } as const;

export const isStreamingRoute = (handler: HandlerName): boolean =>
  ROUTES.some((route) => route.handler === handler && 'streaming' in route && route.streaming);
export type HandlerName = Route['handler'];

export type RouteMatch =
  | { readonly kind: 'found'; readonly route: Route; readonly pathParameters: Record<string, string> }
  | { readonly kind: 'method_not_allowed'; readonly allow: string[] }
  | { readonly kind: 'not_found' };

const templateMatch = (template: string, path: string): Record<string, string> | null => {
  const want = template.split('/');
  const got = path.replace(/\/+$/, '').split('/');
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (const [i, part] of want.entries()) {
    const value = got[i] ?? '';
    if (part.startsWith('{')) {
      if (value === '') return null;
      params[part.slice(1, -1)] = decodeURIComponent(value);
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
