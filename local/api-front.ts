import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { answerTlsToo } from './tls-on-same-port.ts';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import path from 'node:path';
import { docsFileAt, type DocsFile } from '../shared/api/docs-site.ts';
import { EDGE_LIMITS } from '../shared/api/edge-limits.ts';
import { AUTHORIZER_ENTRY, UNMATCHED_ENTRY, isPublicRoute, matchRoute, type RouteMatch } from '../shared/api/routes.ts';
import { MAX_UPLOAD_BYTES, MULTIPART_OVERHEAD_BYTES } from '../shared/api/uploads.ts';
import { authorizerCache, identityOf, type AuthorizerCaching } from './authorizer-cache.ts';
import { serveConsole, type LocalConsole } from './console-site.ts';
import { answerClientError, answerConnect, answerError, answerUnmetExpectation, owesAnswer } from './edge-answers.ts';
import { authorizerEventOf, proxyEventOf, type FrontRequest } from './gateway-event.ts';
import { invokeLocal, invokeLocalHttp, type LocalFunction, type ResponseSink } from './lambda-host.ts';
import { localMeter } from './meter.ts';
import { REPO_ROOT } from './paths.ts';
import { readTurns } from './read-turns.ts';
import { readBody } from './request-body.ts';

/** Streamed answers (sync creates, event streams) may last as long as Lambda lets a function run. */
const STREAMED_TIMEOUT_SECONDS = 900;

export interface ApiFrontOptions {
  readonly port: number;
  /** The template's function that runs an entry (a route's, the authorizer's, the unmatched route's). */
  readonly functionAt: (entry: string) => LocalFunction;
  /** How the template has API Gateway cache the authorizer's answers (local/authorizer-cache.ts). */
  readonly authorizerCaching: AuthorizerCaching;
  readonly host?: string;
  /** Extra JSON endpoints under /_local/ (process list, health), outside the API. */
  readonly localEndpoints: Readonly<Record<string, () => unknown>>;
  /** The web console, at `/` (the API stays under /api/v1/). */
  readonly console?: LocalConsole;
  /** Answers HTTPS on the same port too, with this key and certificate (output file URLs are https). */
  readonly tls?: { readonly key: string; readonly cert: string };
  /** How many reads run at once (local/read-turns.ts); as many as the machine has cores unless given. */
  readonly readsAtOnce?: number;
}

/** What the authorizer answers that the handlers see (its policy allows the whole stage: functions/authorizer.ts). */
interface AuthorizerDecision {
  readonly principalId: string;
  readonly context?: Record<string, unknown>;
}

/** Uploads get Replicate's 100 MiB here (on AWS, Lambda's 6 MB of event bounds them first: shared/api/uploads.ts). */
const bodyLimitOf = (match: RouteMatch): number =>
  match.kind === 'found' && match.route.handler === 'upload-file'
    ? MAX_UPLOAD_BYTES + MULTIPART_OVERHEAD_BYTES
    : EDGE_LIMITS.bodyBytes;

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

/** The request's target as a URL, or null for one no URL can be made of. */
const targetOf = (req: IncomingMessage): URL | null => {
  try {
    return new URL(req.url ?? '/', 'http://localhost');
  } catch {
    return null;
  }
};

/**
 * Where a handler's answer goes. Once the front has answered by itself (the handler took longer
 * than API Gateway waits) or the caller has left, the handler's answer is dropped.
 */
const sinkOf = (res: ServerResponse): ResponseSink => {
  const open = () => !res.destroyed && !res.writableEnded;
  return {
    head: (result) => {
      if (open() && !res.headersSent)
        res.writeHead(result.statusCode, { ...(result.headers as Record<string, string> | undefined) });
    },
    write: (chunk) => {
      if (open()) res.write(chunk);
    },
    end: () => {
      if (open()) res.end();
    },
    onClose: (listener) => res.once('close', () => (res.writableFinished ? undefined : listener())),
  };
};

/**
 * The API Gateway of the local runtime: it builds the same REST proxy events API Gateway builds,
 * runs the same authorizer (its answers cached per identity for as long as the template says), and
 * calls the same handlers that the CDK deploys. It holds every
 * request to the edge's limits (shared/api/edge-limits.ts), answers whatever it refuses in the
 * API's error shape, and treats a client that leaves as the end of that request only.
 */
export const startApiFront = async (options: ApiFrontOptions): Promise<{ url: string; server: Server }> => {
  let inFlight = 0;
  const decisions = authorizerCache<AuthorizerDecision>(options.authorizerCaching.ttlSeconds);
  const reads = readTurns(options.readsAtOnce);
  const localEndpoints: Readonly<Record<string, () => unknown>> = {
    ...options.localEndpoints,
    // How many API requests a handler is working on now (0 at rest, callers gone or not), and how many reads wait their turn.
    requests: () => ({ in_flight: inFlight, reads_waiting: reads.waiting }),
    // As `aws apigateway flush-stage-authorizers-cache` does on AWS: a revoked token is refused from the next request.
    'flush-authorizer-cache': () => ({ flushed: decisions.flush() }),
  };

  const invoke = async (request: FrontRequest, body: Buffer, res: ServerResponse): Promise<void> => {
    const { match, method, resource } = request;
    localMeter.apiRequest(method, resource);
    const streamed = match.kind === 'found' && 'streaming' in match.route && match.route.streaming;
    const run = () => invokeFunctions(request, body, res, streamed);
    // A stream is held open for minutes, so it never holds a read's turn.
    if (streamed || (method !== 'GET' && method !== 'HEAD')) return run();
    return reads.take(() => !res.destroyed, run);
  };

  /** The authorizer (unless the route is public), then the route's handler, answering on `res`. */
  const invokeFunctions = async (
    request: FrontRequest,
    body: Buffer,
    res: ServerResponse,
    streamed: boolean,
  ): Promise<void> => {
    const { match } = request;
    let authorizer: Record<string, unknown> | null = null;
    // A public route (a prediction's stream, reached by its capability URL) has no authorizer, as on AWS.
    if (match.kind === 'found' && !isPublicRoute(match.route)) {
      const event = authorizerEventOf(request);
      const decision = await decisions.answer(
        identityOf(options.authorizerCaching, event.headers ?? {}),
        async () => (await invokeLocal(options.functionAt(AUTHORIZER_ENTRY), event)) as AuthorizerDecision,
      );
      authorizer = { principalId: decision.principalId, ...decision.context };
    }
    const entry = match.kind === 'found' ? match.route.entry : UNMATCHED_ENTRY;
    const answered = invokeLocalHttp(
      options.functionAt(entry),
      proxyEventOf(request, body, authorizer),
      streamed ? STREAMED_TIMEOUT_SECONDS : EDGE_LIMITS.integrationSeconds,
      sinkOf(res),
    );
    if (streamed) return answered;
    // API Gateway waits this long for a buffered answer, then answers 504 itself; the function runs on.
    // A bare timer, cleared: aborting a signal per request made an AbortError (and its stack) each time.
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), EDGE_LIMITS.integrationSeconds * 1000);
    });
    try {
      if ((await Promise.race([answered.then(() => 'on time' as const), late])) === 'late') {
        answerError(res, 'internal_error', `the service did not answer within ${EDGE_LIMITS.integrationSeconds} s`, {
          status: 504,
        });
        await answered;
      }
    } finally {
      clearTimeout(timer);
    }
  };

  const serve = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // Checked here rather than by Node, which would answer with an empty body.
    if (req.httpVersion === '1.1' && req.headers.host === undefined) {
      answerError(res, 'malformed_request', 'an HTTP/1.1 request needs a Host header', { unreadBodyOf: req });
      return;
    }
    const url = targetOf(req);
    if (url === null) {
      answerError(res, 'malformed_request', 'the request target is not a URL path', { unreadBodyOf: req });
      return;
    }
    const method = (req.method ?? 'GET').toUpperCase();
    const localEndpoint = url.pathname.startsWith('/_local/')
      ? localEndpoints[url.pathname.slice('/_local/'.length)]
      : undefined;
    if (localEndpoint) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(await localEndpoint()));
      return;
    }
    const readsPage = method === 'GET' || method === 'HEAD';
    if (options.console && readsPage && (await serveConsole(options.console, url.pathname, method, res))) return;
    const docsFile = docsFileAt(url.pathname);
    if (docsFile && readsPage) {
      await serveDocsFile(docsFile, method, res);
      return;
    }
    const match = matchRoute(method, url.pathname);
    const limit = bodyLimitOf(match);
    const body = await readBody(req, limit);
    switch (body.kind) {
      case 'gone':
        return;
      case 'too_large':
        // As the stack's REQUEST_TOO_LARGE gateway response answers (infra/constructs/prediction-api.ts).
        answerError(res, 'payload_too_large', `the request body is over ${limit} bytes`, {
          unreadBodyOf: req,
        });
        return;
      case 'too_slow':
        answerError(res, 'request_timeout', `the request body did not arrive in time: ${body.reason}`, { close: true });
        return;
    }
    const request: FrontRequest = {
      req,
      method,
      url,
      match,
      resource: match.kind === 'found' ? match.route.path : '/{proxy+}',
      requestId: randomUUID(),
      receivedAtMs: Date.now(),
    };
    inFlight += 1;
    try {
      await invoke(request, body.body, res);
    } finally {
      inFlight -= 1;
    }
  };

  const serverOptions = {
    maxHeaderSize: EDGE_LIMITS.headerBytes,
    headersTimeout: EDGE_LIMITS.headersSeconds * 1000,
    // Bodies are held to their pace by readBody; a streamed answer may last many minutes.
    requestTimeout: 0,
    keepAliveTimeout: EDGE_LIMITS.keepAliveSeconds * 1000,
    connectionsCheckingInterval: 1000,
    requireHostHeader: false,
  };
  const answer = (req: IncomingMessage, res: ServerResponse): void => {
    owesAnswer(req, res);
    // Only the service's own mistakes (a write after the end) make a response fail: shown, never fatal.
    res.on('error', (error) => console.error('local API front: a response failed', error));
    void serve(req, res).catch((error: unknown) => {
      // A caller that left is no failure of the service, whatever broke after it.
      if (res.destroyed && !res.writableFinished) return;
      console.error('local API front failed', error);
      answerError(res, 'internal_error', 'the API front failed', { status: 502 });
    });
  };
  const server = createServer(serverOptions, answer);
  server.on('clientError', answerClientError);
  server.on('connect', answerConnect);
  server.on('checkExpectation', answerUnmetExpectation);
  if (options.tls) answerTlsToo(server, { ...serverOptions, ...options.tls }, answer);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', resolve);
  });
  // Listening, the server fails only to accept a connection (out of file descriptors, say): that connection is lost, not the service.
  server.on('error', (error) => console.error('local API front: a connection could not be accepted', error));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return { url: `http://127.0.0.1:${port}`, server };
};
