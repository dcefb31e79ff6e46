import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import path from 'node:path';
import type { APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { docsFileAt, type DocsFile } from '../shared/api/docs-site.ts';
import type { ErrorBody } from '../shared/api/http-status.ts';
import type { ErrorCode } from '../shared/domain/errors.ts';
import { AUTHORIZER_ENTRY, UNMATCHED_ENTRY, isPublicRoute, matchRoute } from '../shared/api/routes.ts';
import { MAX_UPLOAD_BYTES, MULTIPART_OVERHEAD_BYTES, isBinaryMediaType } from '../shared/api/uploads.ts';
import { serveConsole, type LocalConsole } from './console-site.ts';
import { invokeLocal, invokeLocalHttp } from './lambda-host.ts';
import { localMeter } from './meter.ts';
import { LOCAL_ACCOUNT, LOCAL_REGION, REPO_ROOT } from './paths.ts';

const STAGE = 'prod';
const API_ID = 'local';
/** Streamed answers (sync creates, event streams) may last as long as Lambda lets a function run. */
const STREAMED_TIMEOUT_SECONDS = 900;
/** API Gateway's own payload limit. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;

export interface ApiFrontOptions {
  readonly port: number;
  readonly host?: string;
  /** Extra JSON endpoints under /_local/ (process list, health), outside the API. */
  readonly localEndpoints: Readonly<Record<string, () => unknown>>;
  /** The web console, at `/` (the API stays under /api/v1/). */
  readonly console?: LocalConsole;
}

/** Uploads get Replicate's 100 MiB here (on AWS, Lambda's 6 MB of event bounds them first: shared/api/uploads.ts). */
const bodyLimitOf = (method: string, path: string): number => {
  const match = matchRoute(method, path);
  return match.kind === 'found' && match.route.handler === 'upload-file'
    ? MAX_UPLOAD_BYTES + MULTIPART_OVERHEAD_BYTES
    : MAX_BODY_BYTES;
};

const readBody = (req: IncomingMessage, maxBytes: number): Promise<Buffer | null> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        resolve(null);
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });

/** An answer API Gateway gives itself, in the API's error shape (as the stack's gateway responses give it). */
const gatewayError = (code: ErrorCode, message: string): ErrorBody => ({
  error: { code, message, request_id: randomUUID() },
});

/** The reference page's static files, as S3 serves them on AWS (infra/constructs/api-docs.ts). */
const serveDocsFile = async (file: DocsFile, method: string, res: ServerResponse): Promise<void> => {
  const content = await readFile(path.join(REPO_ROOT, file.source));
  res.writeHead(200, {
    'content-type': file.contentType,
    'content-length': content.length,
    'x-content-type-options': 'nosniff',
    'cache-control': 'public, max-age=300',
  });
  res.end(method === 'HEAD' ? undefined : content);
};

const singleValued = (req: IncomingMessage): Record<string, string> =>
  Object.fromEntries(Object.entries(req.headersDistinct).map(([name, values]) => [name, (values ?? []).join(',')]));

/**
 * The API Gateway of the local runtime: it builds the same REST proxy events API Gateway builds,
 * runs the same authorizer, and calls the same handlers that the CDK deploys.
 */
export const startApiFront = async (options: ApiFrontOptions): Promise<{ url: string; server: Server }> => {
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const method = (req.method ?? 'GET').toUpperCase();
      const localEndpoint = url.pathname.startsWith('/_local/')
        ? options.localEndpoints[url.pathname.slice('/_local/'.length)]
        : undefined;
      if (localEndpoint) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(localEndpoint()));
        return;
      }
      if (
        options.console &&
        (method === 'GET' || method === 'HEAD') &&
        (await serveConsole(options.console, url.pathname, method, res))
      )
        return;
      const docsFile = docsFileAt(url.pathname);
      if (docsFile && (method === 'GET' || method === 'HEAD')) {
        await serveDocsFile(docsFile, method, res);
        return;
      }
      const body = await readBody(req, bodyLimitOf(method, url.pathname));
      if (body === null) {
        // As the stack's REQUEST_TOO_LARGE gateway response answers (infra/constructs/prediction-api.ts).
        res
          .writeHead(413, { 'content-type': 'application/json' })
          .end(JSON.stringify(gatewayError('payload_too_large', 'the request is too large')));
        return;
      }
      // As API Gateway does; the handlers build the API's links from these.
      const headers: Record<string, string> = { ...singleValued(req), 'x-forwarded-proto': 'http' };
      const match = matchRoute(method, url.pathname);
      const resource = match.kind === 'found' ? match.route.path : '/{proxy+}';
      localMeter.apiRequest(method, resource);
      const requestId = randomUUID();
      const query = url.searchParams.size > 0 ? Object.fromEntries(url.searchParams) : null;
      const requestContext = {
        accountId: LOCAL_ACCOUNT,
        apiId: API_ID,
        httpMethod: method,
        // Reached at the root, as through a custom domain: no stage in the path.
        path: url.pathname,
        protocol: 'HTTP/1.1',
        requestId,
        requestTimeEpoch: Date.now(),
        resourceId: resource,
        resourcePath: resource,
        stage: STAGE,
        identity: { sourceIp: req.socket.remoteAddress ?? '127.0.0.1', userAgent: headers['user-agent'] ?? null },
      };
      let authorizer: Record<string, unknown> | null = null;
      let entry: string = UNMATCHED_ENTRY;
      if (match.kind === 'found') entry = match.route.entry;
      // A public route (a prediction's stream, reached by its capability URL) has no authorizer, as on AWS.
      if (match.kind === 'found' && !isPublicRoute(match.route)) {
        const authorizerEvent = {
          type: 'REQUEST',
          methodArn: `arn:aws:execute-api:${LOCAL_REGION}:${LOCAL_ACCOUNT}:${API_ID}/${STAGE}/${method}${url.pathname}`,
          resource,
          path: url.pathname,
          httpMethod: method,
          headers,
          queryStringParameters: query,
          pathParameters: match.pathParameters,
          stageVariables: null,
          requestContext,
        } as unknown as APIGatewayRequestAuthorizerEvent;
        const decision = (await invokeLocal(AUTHORIZER_ENTRY, authorizerEvent)) as {
          principalId: string;
          context?: Record<string, unknown>;
        };
        authorizer = { principalId: decision.principalId, ...decision.context };
      }
      const binary = isBinaryMediaType(headers['content-type']);
      const event = {
        resource,
        path: url.pathname,
        httpMethod: method,
        headers,
        multiValueHeaders: Object.fromEntries(Object.entries(req.headersDistinct).map(([k, v]) => [k, v ?? []])),
        queryStringParameters: query,
        multiValueQueryStringParameters:
          query && Object.fromEntries([...url.searchParams.keys()].map((k) => [k, url.searchParams.getAll(k)])),
        pathParameters: match.kind === 'found' ? match.pathParameters : { proxy: url.pathname.slice(1) },
        stageVariables: null,
        requestContext: { ...requestContext, authorizer },
        body: body.length > 0 ? body.toString(binary ? 'base64' : 'utf8') : null,
        isBase64Encoded: binary,
      } as unknown as APIGatewayProxyEvent;
      const streamed = match.kind === 'found' && 'streaming' in match.route && match.route.streaming;
      await invokeLocalHttp(entry, event, streamed ? STREAMED_TIMEOUT_SECONDS : 35, {
        head: (result) =>
          res.writeHead(result.statusCode, { ...(result.headers as Record<string, string> | undefined) }),
        write: (chunk) => res.write(chunk),
        end: () => res.end(),
        onClose: (listener) => res.once('close', () => (res.writableFinished ? undefined : listener())),
      });
    })().catch((error: unknown) => {
      console.error('local API front failed', error);
      if (!res.headersSent)
        res
          .writeHead(502, { 'content-type': 'application/json' })
          .end(JSON.stringify(gatewayError('internal_error', 'the API front failed')));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', resolve);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return { url: `http://127.0.0.1:${port}`, server };
};
