import { randomUUID } from 'node:crypto';
import { errorBodySchema } from '../../shared/api/error-body-schema.ts';
import { StepFailure } from './step.ts';

/** An answer of the API, whatever it is: a service behind a wrong URL may answer HTML. */
export interface Reply {
  readonly status: number;
  readonly headers: Headers;
  /** The body parsed as JSON, or its text when it is not JSON. */
  readonly body: unknown;
  /** The service's id of the request (its `x-request-id`), else the one this client sent. */
  readonly requestId: string;
  readonly ms: number;
}

export interface CallOptions {
  readonly method?: 'GET' | 'POST';
  /** Sent as `application/json`. */
  readonly json?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  /** How long to wait for the whole answer; 30 s unless told. */
  readonly timeoutMs?: number;
}

export interface SmokeClient {
  /** The API base, ending `/api/v1/`. */
  readonly baseUrl: URL;
  /** One call to `path` under the base, with the token. */
  call(path: string, options?: CallOptions): Promise<Reply>;
}

const DEFAULT_TIMEOUT_MS = 30_000;

const parseBody = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
};

/**
 * A client that tells everything a deployer needs when something is wrong: each call carries a
 * fresh `x-request-id` (interface: Requests), a body that is not JSON is kept as text, and a
 * call that gets no answer in time fails with the route it was.
 */
export const smokeClient = (baseUrl: URL, token: string): SmokeClient => ({
  baseUrl,
  async call(path, options = {}) {
    const method = options.method ?? (options.json === undefined ? 'GET' : 'POST');
    const sentId = randomUUID();
    const headers: Record<string, string> = {
      authorization: `Bearer ${token}`,
      'x-request-id': sentId,
      ...options.headers,
    };
    if (options.json !== undefined) headers['content-type'] = 'application/json';
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const started = performance.now();
    let response: Response;
    let text: string;
    try {
      response = await fetch(new URL(path, baseUrl), {
        method,
        headers,
        ...(options.json === undefined ? {} : { body: JSON.stringify(options.json) }),
        signal: AbortSignal.timeout(timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      if (error instanceof DOMException && error.name === 'TimeoutError')
        throw new StepFailure(`${method} ${path}: no answer in ${timeoutMs / 1000} s (request id ${sentId})`);
      // fetch's own "fetch failed" says nothing; its cause says what (ECONNREFUSED, a TLS error, a name not found).
      const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
      throw new StepFailure(`${method} ${new URL(path, baseUrl).href}: ${cause}`);
    }
    return {
      status: response.status,
      headers: response.headers,
      body: text === '' ? null : parseBody(text),
      requestId: response.headers.get('x-request-id') ?? sentId,
      ms: performance.now() - started,
    };
  },
});

const MAX_SHOWN = 200;

/** `HTTP 401 invalid_token (request id …): the token is not valid` — the service's own words. */
export const describeReply = (reply: Reply): string => {
  const error = errorBodySchema.safeParse(reply.body);
  if (error.success) {
    const { code, message, request_id: requestId, fields = [] } = error.data.error;
    const fieldIssues = fields
      .filter((field) => !message.includes(field.message))
      .map((field) => `; ${field.field}: ${field.message}`)
      .join('');
    return `HTTP ${reply.status} ${code} (request id ${requestId}): ${message}${fieldIssues}`;
  }
  const raw = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
  const shown = raw.length > MAX_SHOWN ? `${raw.slice(0, MAX_SHOWN)}…` : raw;
  return `HTTP ${reply.status} (request id ${reply.requestId}): ${shown}`;
};

/** The reply, when it has the status expected; else the step fails with what the service said. */
export const expectStatus = (reply: Reply, expected: number, what: string): Reply => {
  if (reply.status !== expected)
    throw new StepFailure(`${what}: expected HTTP ${expected}, got ${describeReply(reply)}`);
  return reply;
};
