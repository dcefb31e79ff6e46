import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { refusedAddress, type AddressPolicy } from '../domain/addresses.ts';
import { guardedLookup } from './guarded-lookup.ts';

export interface DownloadLimits {
  readonly maxBytes: number;
  /** For the whole download, redirects included: a server that drips or stalls is cut off. */
  readonly timeoutMs: number;
  readonly maxRedirects: number;
}

export const DEFAULT_DOWNLOAD_LIMITS: DownloadLimits = {
  maxBytes: 512 * 1024 * 1024,
  timeoutMs: 120_000,
  maxRedirects: 5,
};

export interface Downloaded {
  readonly size: number;
  readonly sha256: string;
  readonly contentType: string | null;
  /** The address the bytes came from, after redirects. */
  readonly finalUrl: string;
}

/** A file input could not be fetched: the message is the prediction's error, so it says why. */
export class DownloadError extends Error {
  override readonly name = 'DownloadError';
}

const describe = (url: string) => {
  const { protocol, host, pathname } = new URL(url);
  return `${protocol}//${host}${pathname}`;
};

/**
 * Downloads a file input to `file` through the address guard: http(s) only, every address the
 * host resolves to checked and the connection made to that very address, each redirect checked
 * the same way (followed by hand, at most `maxRedirects`), the size and the total time capped,
 * and `signal` (a cancel) stopping it at once.
 */
export const downloadToFile = async (
  url: string,
  file: string,
  policy: AddressPolicy,
  limits: DownloadLimits,
  signal?: AbortSignal,
): Promise<Downloaded> => {
  const deadline = AbortSignal.timeout(limits.timeoutMs);
  const stop = signal ? AbortSignal.any([signal, deadline]) : deadline;
  const why = (error: unknown): DownloadError => {
    if (error instanceof DownloadError) return error;
    if (deadline.aborted)
      return new DownloadError(`fetching ${describe(url)} took longer than ${limits.timeoutMs / 1000} s`);
    if (signal?.aborted) return new DownloadError('the download was stopped');
    return new DownloadError(
      `fetching ${describe(url)} failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  };
  let current = url;
  try {
    for (let redirects = 0; ; redirects++) {
      const response = await open(current, policy, stop);
      const status = response.statusCode ?? 0;
      if (status >= 300 && status < 400 && response.headers.location) {
        response.resume();
        if (redirects >= limits.maxRedirects)
          throw new DownloadError(`fetching ${describe(url)}: more than ${limits.maxRedirects} redirects`);
        current = new URL(response.headers.location, current).toString();
        continue;
      }
      if (status !== 200) {
        response.resume();
        throw new DownloadError(`fetching ${describe(current)} answered HTTP ${status}`);
      }
      const declared = Number(response.headers['content-length'] ?? NaN);
      if (Number.isFinite(declared) && declared > limits.maxBytes) {
        response.destroy();
        throw new DownloadError(`${describe(current)} is ${declared} bytes, more than the ${limits.maxBytes} allowed`);
      }
      const hash = createHash('sha256');
      let size = 0;
      const counter = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          size += chunk.length;
          if (size > limits.maxBytes)
            return done(new DownloadError(`${describe(current)} is more than the ${limits.maxBytes} bytes allowed`));
          hash.update(chunk);
          done(null, chunk);
        },
      });
      await pipeline(response, counter, createWriteStream(file), { signal: stop });
      return {
        size,
        sha256: hash.digest('hex'),
        contentType: response.headers['content-type'] ?? null,
        finalUrl: current,
      };
    }
  } catch (error) {
    throw why(error);
  }
};

const open = (url: string, policy: AddressPolicy, signal: AbortSignal): Promise<IncomingMessage> =>
  new Promise((resolve, reject) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return reject(new DownloadError(`${url} is not a URL`));
    }
    if (target.protocol !== 'http:' && target.protocol !== 'https:') {
      return reject(new DownloadError(`the ${target.protocol.slice(0, -1)} scheme is not fetched; only http(s)`));
    }
    const host = target.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) !== 0) {
      const refused = refusedAddress(host, policy);
      if (refused) return reject(new DownloadError(`${describe(url)}: ${refused}`));
    }
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(target, {
      method: 'GET',
      lookup: guardedLookup(policy),
      signal,
      headers: { 'user-agent': 'prognoz-worker' },
    });
    req.on('response', resolve);
    req.on('error', reject);
    req.end();
  });
