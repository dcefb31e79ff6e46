/** A caller of the prognoz API over real HTTP, shared by the end-to-end tests and the benchmark. */
export interface ApiTarget {
  readonly apiUrl: string;
  readonly apiToken: string;
}

export interface ApiResponse<T = Record<string, unknown>> {
  readonly status: number;
  readonly headers: Headers;
  readonly json: T;
  readonly ms: number;
}

export interface CallOptions {
  readonly method?: string;
  /** An object is sent as JSON unless a content type says otherwise; a string is sent as is. */
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  /** null sends no Authorization header. */
  readonly token?: string | null;
}

/** One real HTTP call to the API at `target`. */
export const apiCall = async <T = Record<string, unknown>>(
  target: ApiTarget,
  path: string,
  options: CallOptions = {},
): Promise<ApiResponse<T>> => {
  const token = options.token === undefined ? target.apiToken : options.token;
  const headers: Record<string, string> = { ...options.headers };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  let body: string | undefined;
  if (typeof options.body === 'string') body = options.body;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const started = performance.now();
  const response = await fetch(new URL(path.replace(/^\//, ''), target.apiUrl), {
    method: options.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    body,
  });
  const text = await response.text();
  // A 204 has no body.
  return {
    status: response.status,
    headers: response.headers,
    json: (text === '' ? null : JSON.parse(text)) as T,
    ms: performance.now() - started,
  };
};
