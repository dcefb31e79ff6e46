import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** One HTTP/1.1 response as it came over the wire. */
export interface RawResponse {
  readonly status: number;
  /** Lower-case names; a repeated header's values joined by `, `. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** Parses every complete response in `bytes` (content-length or chunked bodies), in order. */
export const parseResponses = (bytes: Buffer): RawResponse[] => {
  const responses: RawResponse[] = [];
  let at = 0;
  for (;;) {
    const headEnd = bytes.indexOf('\r\n\r\n', at);
    if (headEnd < 0) return responses;
    const [statusLine = '', ...lines] = bytes.subarray(at, headEnd).toString('latin1').split('\r\n');
    const status = Number(statusLine.split(' ')[1]);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
    }
    at = headEnd + 4;
    // 1xx answers have no body; the final answer follows.
    if (status >= 100 && status < 200) continue;
    let body: Buffer;
    if (headers['transfer-encoding']?.toLowerCase() === 'chunked') {
      const parts: Buffer[] = [];
      for (;;) {
        const sizeEnd = bytes.indexOf('\r\n', at);
        if (sizeEnd < 0) return responses;
        const size = Number.parseInt(bytes.subarray(at, sizeEnd).toString('latin1'), 16);
        if (bytes.length < sizeEnd + 2 + size + 2) return responses;
        parts.push(bytes.subarray(sizeEnd + 2, sizeEnd + 2 + size));
        at = sizeEnd + 2 + size + 2;
        if (size === 0) break;
      }
      body = Buffer.concat(parts);
    } else {
      const length = Number(headers['content-length'] ?? 0);
      if (bytes.length < at + length) return responses;
      body = bytes.subarray(at, at + length);
      at += length;
    }
    responses.push({ status, headers, body: body.toString('utf8') });
  }
};

/** A raw connection to the service, written to and read from as a hostile client does. */
export interface RawConnection {
  readonly socket: Socket;
  /** Everything received so far. */
  received(): Buffer;
  responses(): RawResponse[];
  /** Resolves when the server closed the connection (or it broke), with the time it took from the start. */
  readonly closed: Promise<number>;
  write(data: string | Buffer): Promise<void>;
  /** Writes `data` a piece at a time, `everyMs` apart, until it is all sent or the connection is closed. */
  dribble(data: string | Buffer, pieceBytes: number, everyMs: number): Promise<void>;
  /** Waits until `count` whole responses have come (or throws after `timeoutMs`). */
  untilResponses(count: number, timeoutMs?: number): Promise<RawResponse[]>;
  /** Until at least `bytes` bytes have come. */
  untilBytes(bytes: number, timeoutMs?: number): Promise<Buffer>;
  /** Goes away at once, as a client that gives up or loses its network: a reset, not a polite close. */
  abandon(): void;
}

export const openRaw = async (origin: string): Promise<RawConnection> => {
  const { hostname, port } = new URL(origin);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const started = performance.now();
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  // A reset from the server is a close like any other here.
  socket.on('error', () => undefined);
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(performance.now() - started)));
  const received = () => Buffer.concat(chunks);
  const until = async <T>(get: () => T | null, what: string, timeoutMs: number): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = get();
      if (value !== null) return value;
      if (Date.now() > deadline)
        throw new Error(`${what} did not come within ${timeoutMs} ms: ${received().toString()}`);
      await sleep(20);
    }
  };
  const write = (data: string | Buffer) =>
    new Promise<void>((resolve) => {
      if (socket.destroyed || !socket.writable) return resolve();
      socket.write(data, () => resolve());
    });
  return {
    socket,
    received,
    responses: () => parseResponses(received()),
    closed,
    write,
    dribble: async (data, pieceBytes, everyMs) => {
      const bytes = Buffer.from(data);
      for (let at = 0; at < bytes.length && !socket.destroyed && socket.writable; at += pieceBytes) {
        await write(bytes.subarray(at, at + pieceBytes));
        await sleep(everyMs);
      }
    },
    untilResponses: (count, timeoutMs = 15_000) =>
      until(
        () => {
          const responses = parseResponses(received());
          return responses.length >= count ? responses : null;
        },
        `${count} responses`,
        timeoutMs,
      ),
    untilBytes: (bytes, timeoutMs = 15_000) =>
      until(() => (received().length >= bytes ? received() : null), `${bytes} bytes`, timeoutMs),
    abandon: () => socket.resetAndDestroy(),
  };
};

/** A request's head as a client writes it: request line, headers, blank line. */
export const requestHead = (method: string, target: string, headers: readonly (readonly [string, string])[]): string =>
  `${method} ${target} HTTP/1.1\r\nhost: localhost\r\n${headers.map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n`;
