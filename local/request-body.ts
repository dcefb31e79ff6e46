import type { IncomingMessage, ServerResponse } from 'node:http';
import { EDGE_LIMITS } from '../shared/api/edge-limits.ts';

/** How a request's body ended: read whole, or why not. Nothing a client does makes it an error. */
export type BodyOutcome =
  | { readonly kind: 'read'; readonly body: Buffer }
  | { readonly kind: 'too_large' }
  | { readonly kind: 'too_slow'; readonly reason: string }
  /** The client went away before the body was complete. */
  | { readonly kind: 'gone' };

/** The least pace a body must keep (shared/api/edge-limits.ts). */
export interface BodyPace {
  readonly idleMs: number;
  readonly graceMs: number;
  readonly minBytesPerSecond: number;
}

export const EDGE_PACE: BodyPace = {
  idleMs: EDGE_LIMITS.bodyIdleSeconds * 1000,
  graceMs: EDGE_LIMITS.bodyGraceSeconds * 1000,
  minBytesPerSecond: EDGE_LIMITS.minBodyBytesPerSecond,
};

export interface BodyProgress {
  readonly bytes: number;
  /** Since the headers were read. */
  readonly elapsedMs: number;
  /** Since the last bytes came. */
  readonly quietMs: number;
}

/** Why a body arriving like this is too slow to keep its connection, or null while it keeps the pace. */
export const slownessOf = (pace: BodyPace, progress: BodyProgress): string | null => {
  if (progress.quietMs >= pace.idleMs) return `the body paused for ${pace.idleMs / 1000} s`;
  const owed = ((progress.elapsedMs - pace.graceMs) / 1000) * pace.minBytesPerSecond;
  if (progress.bytes < owed) return `the body came slower than ${pace.minBytesPerSecond} bytes a second`;
  return null;
};

const CHECK_EVERY_MS = 250;

/**
 * Reads a request's body within `maxBytes` and the pace. A body declared larger than the limit is
 * refused before a byte of it is read.
 */
export const readBody = (
  req: IncomingMessage,
  maxBytes: number,
  pace: BodyPace = EDGE_PACE,
  now: () => number = () => performance.now(),
): Promise<BodyOutcome> => {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.resolve({ kind: 'too_large' });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const started = now();
    let bytes = 0;
    let lastBytesAt = started;
    let settled = false;
    const settle = (outcome: BodyOutcome) => {
      if (settled) return;
      settled = true;
      clearInterval(pacing);
      req.off('data', take);
      resolve(outcome);
    };
    const take = (chunk: Buffer) => {
      bytes += chunk.length;
      lastBytesAt = now();
      if (bytes > maxBytes) settle({ kind: 'too_large' });
      else chunks.push(chunk);
    };
    const pacing = setInterval(() => {
      const at = now();
      const reason = slownessOf(pace, { bytes, elapsedMs: at - started, quietMs: at - lastBytesAt });
      if (reason !== null) settle({ kind: 'too_slow', reason });
    }, CHECK_EVERY_MS);
    req.on('data', take);
    req.once('end', () => settle({ kind: 'read', body: Buffer.concat(chunks) }));
    // A client that disconnects mid-body: Node reports it as an 'aborted' error, then 'close'.
    req.on('error', () => settle({ kind: 'gone' }));
    req.once('close', () => settle({ kind: 'gone' }));
  });
};

/** How long the rest of a refused body is read and dropped before the connection closes. */
const LINGER_MS = 2000;

/**
 * Ends an answer given before the request's body was read: the answer goes out whole at once, the
 * rest of the body is read and dropped for a moment, then the connection closes. Closing at once,
 * with the client still sending, would reset the connection and lose the answer on its way.
 */
export const endAfterBody = (req: IncomingMessage, res: ServerResponse): void => {
  const end = () => {
    clearTimeout(lingering);
    if (!res.writableEnded) res.end();
  };
  const lingering = setTimeout(end, LINGER_MS);
  req.once('end', end);
  req.once('close', end);
  req.resume();
};
