import type { ConsoleConfig } from '../../../shared/api/console-site.ts';
import { currentAccessToken, storeSession } from './session.ts';

/** The API beside the console: same origin, so no CORS and no address to configure. */
export const API_BASE = '/api/v1';

/** The API's error body (`{ error: { code, message } }`), as a thrown value. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

let signedOutListener: () => void = () => undefined;

/** Called when the API no longer takes the sign-in (expired and not renewable, or revoked). */
export const onSignedOut = (listener: () => void): void => {
  signedOutListener = listener;
};

/**
 * The API's own links are absolute, built from the host API Gateway saw (behind CloudFront, its
 * own): the console follows them on its own origin, by their path under /api/v1.
 */
export const sameOrigin = (link: string): string => {
  const at = link.indexOf(API_BASE);
  return at < 0 ? link : link.slice(at);
};

let config: ConsoleConfig | null = null;

export const configureApi = (loaded: ConsoleConfig): void => {
  config = loaded;
};

export const request = async <T>(
  method: string,
  path: string,
  body?: unknown,
  as: 'json' | 'text' = 'json',
): Promise<T> => {
  const token = config === null ? null : await currentAccessToken(config);
  if (token === null) {
    signedOutListener();
    throw new ApiError(401, 'signed_out', 'Your sign-in has ended: sign in again.');
  }
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  let payload: BodyInit | undefined;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const url = path.startsWith(API_BASE) ? path : `${API_BASE}${path}`;
  const response = await fetch(url, { method, headers, ...(payload === undefined ? {} : { body: payload }) });
  const text = await response.text();
  if (response.ok && as === 'text') return text as T;
  const parsed = text === '' ? null : (JSON.parse(text) as unknown);
  if (!response.ok) {
    const error = (parsed as { error?: { code?: string; message?: string } } | null)?.error;
    if (response.status === 401) {
      storeSession(null);
      signedOutListener();
    }
    throw new ApiError(
      response.status,
      error?.code ?? `http_${response.status}`,
      error?.message ?? `HTTP ${response.status}`,
    );
  }
  return parsed as T;
};

export const get = <T>(path: string): Promise<T> => request<T>('GET', path);

/** A text answer (a model's README, in markdown). */
export const getText = (path: string): Promise<string> => request<string>('GET', path, undefined, 'text');
