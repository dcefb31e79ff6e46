import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import type { RouteMatch } from '../shared/api/routes.ts';
import { isBinaryMediaType } from '../shared/api/uploads.ts';
import { LOCAL_ACCOUNT, LOCAL_REGION } from './paths.ts';

const STAGE = 'prod';
const API_ID = 'local';

/** One request as the local front saw it: what API Gateway builds its events from. */
export interface FrontRequest {
  readonly req: IncomingMessage;
  readonly method: string;
  readonly url: URL;
  readonly match: RouteMatch;
  /** The route's resource path, or `/{proxy+}` for what no route takes (the stack's fallback). */
  readonly resource: string;
  /** API Gateway's id of the request (its requestContext.requestId), and when it came. */
  readonly requestId: string;
  readonly receivedAtMs: number;
}

/**
 * Headers as API Gateway passes them: `multiValueHeaders` with every value of each, `headers` with
 * the last one of each (never joined). The handlers read repeated headers from the first.
 */
const headersOf = (
  req: IncomingMessage,
): { headers: Record<string, string>; multiValueHeaders: Record<string, string[]> } => {
  const multiValueHeaders = Object.fromEntries(
    Object.entries(req.headersDistinct).map(([name, values]) => [name, values ?? []]),
  );
  const headers: Record<string, string> = Object.fromEntries(
    Object.entries(multiValueHeaders).flatMap(([name, values]) => {
      const last = values.at(-1);
      return last === undefined ? [] : [[name, last]];
    }),
  );
  // As API Gateway does; the handlers build the API's links from these.
  return { headers: { ...headers, 'x-forwarded-proto': 'http' }, multiValueHeaders };
};

const requestContextOf = (
  { req, method, url, resource, requestId, receivedAtMs }: FrontRequest,
  userAgent: string | null,
) => ({
  accountId: LOCAL_ACCOUNT,
  apiId: API_ID,
  httpMethod: method,
  // Reached at the root, as through a custom domain: no stage in the path.
  path: url.pathname,
  protocol: 'HTTP/1.1',
  requestId,
  requestTimeEpoch: receivedAtMs,
  resourceId: resource,
  resourcePath: resource,
  stage: STAGE,
  identity: { sourceIp: req.socket.remoteAddress ?? '127.0.0.1', userAgent },
});

const queryOf = (url: URL) => (url.searchParams.size > 0 ? Object.fromEntries(url.searchParams) : null);

/** The REQUEST authorizer's event, as API Gateway builds it for the route's method. */
export const authorizerEventOf = (request: FrontRequest): APIGatewayRequestAuthorizerEvent => {
  const { headers } = headersOf(request.req);
  const { method, url, match, resource } = request;
  return {
    type: 'REQUEST',
    methodArn: `arn:aws:execute-api:${LOCAL_REGION}:${LOCAL_ACCOUNT}:${API_ID}/${STAGE}/${method}${url.pathname}`,
    resource,
    path: url.pathname,
    httpMethod: method,
    headers,
    queryStringParameters: queryOf(url),
    pathParameters: match.kind === 'found' ? match.pathParameters : null,
    stageVariables: null,
    requestContext: requestContextOf(request, headers['user-agent'] ?? null),
  } as unknown as APIGatewayRequestAuthorizerEvent;
};

/** The REST proxy event of the request, with what the authorizer passed and the body it carried. */
export const proxyEventOf = (
  request: FrontRequest,
  body: Buffer,
  authorizer: Record<string, unknown> | null,
): APIGatewayProxyEvent => {
  const { headers, multiValueHeaders } = headersOf(request.req);
  const { method, url, match, resource } = request;
  const query = queryOf(url);
  const binary = isBinaryMediaType(headers['content-type']);
  return {
    resource,
    path: url.pathname,
    httpMethod: method,
    headers,
    multiValueHeaders,
    queryStringParameters: query,
    multiValueQueryStringParameters:
      query && Object.fromEntries([...url.searchParams.keys()].map((k) => [k, url.searchParams.getAll(k)])),
    pathParameters: match.kind === 'found' ? match.pathParameters : { proxy: url.pathname.slice(1) },
    stageVariables: null,
    requestContext: { ...requestContextOf(request, headers['user-agent'] ?? null), authorizer },
    body: body.length > 0 ? body.toString(binary ? 'base64' : 'utf8') : null,
    isBase64Encoded: binary,
  } as unknown as APIGatewayProxyEvent;
};
