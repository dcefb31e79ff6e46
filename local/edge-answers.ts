import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ErrorBody } from '../shared/api/error-body-schema.ts';
import { HTTP_STATUS } from '../shared/api/http-status.ts';
import type { ErrorCode } from '../shared/domain/errors.ts';
import { endAfterBody } from './request-body.ts';

/**
 * The answers the local front gives itself, before or instead of a handler, in the API's error
 * shape: as the stack's gateway responses answer on AWS (infra/constructs/prediction-api.ts).
 */
const errorBody = (code: ErrorCode, message: string, requestId: string): string =>
  JSON.stringify({ error: { code, message, request_id: requestId } } satisfies ErrorBody);

export interface EdgeAnswerOptions {
  /** Closes the connection after the answer (the client misbehaves). */
  readonly close?: boolean;
  /** The request whose body was left unread: the connection closes once the rest of it has come (request-body.ts). */
  readonly unreadBodyOf?: IncomingMessage;
  /** Another status than the code's own (a handler timeout is 504, as API Gateway's). */
  readonly status?: number;
}

/** Answers an error on a response not yet begun; a no-op when the caller has left or an answer began. */
export const answerError = (
  res: ServerResponse,
  code: ErrorCode,
  message: string,
  options: EdgeAnswerOptions = {},
): void => {
  if (res.headersSent || res.destroyed) return;
  const requestId = randomUUID();
  const body = errorBody(code, message, requestId);
  res.writeHead(options.status ?? HTTP_STATUS[code], {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'x-request-id': requestId,
    ...(options.close || options.unreadBodyOf ? { connection: 'close' } : {}),
  });
  if (!options.unreadBodyOf) {
    res.end(body);
    return;
  }
  res.write(body);
  endAfterBody(options.unreadBodyOf, res);
};

/**
 * The answer to a request Node's HTTP parser refused, or that did not arrive in time. There is
 * no request or response object then: the whole answer is written to the socket, which closes.
 */
const parserAnswer = (error: NodeJS.ErrnoException): { code: ErrorCode; message: string } => {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return { code: 'request_headers_too_large', message: 'the request line and headers are too large' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { code: 'request_timeout', message: 'the request line and headers did not arrive in time' };
    default: {
      // llhttp's reason ("Invalid header value char", "Transfer-Encoding can't be present with Content-Length").
      const reason = (error as { reason?: unknown }).reason;
      return {
        code: 'malformed_request',
        message: `the request is not valid HTTP/1.1${typeof reason === 'string' ? `: ${reason}` : ''}`,
      };
    }
  }
};

/** Writes a whole answer to a socket that has no response object, then closes it. */
const answerOnSocket = (socket: Duplex, code: ErrorCode, message: string): void => {
  if (socket.destroyed || !socket.writable) return;
  const status = HTTP_STATUS[code];
  const requestId = randomUUID();
  const body = errorBody(code, message, requestId);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
      'content-type: application/json\r\n' +
      `x-request-id: ${requestId}\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\n` +
      'connection: close\r\n\r\n' +
      body,
  );
};

/** Per connection, the requests whose answers are still being made, and what waits for them. */
const unanswered = new WeakMap<Duplex, { requests: Set<IncomingMessage>; then: (() => void)[] }>();

/**
 * Whether every answer owed before a refused request has gone out: requests still sending their
 * body are the refused one (or behind it) and wait for nothing.
 */
const answeredBefore = (requests: ReadonlySet<IncomingMessage>): boolean => [...requests].every((req) => !req.complete);

/** Counts an answer owed on its connection until it is finished (or the connection breaks). */
export const owesAnswer = (req: IncomingMessage, res: ServerResponse): void => {
  const socket = req.socket;
  const owed = unanswered.get(socket) ?? { requests: new Set<IncomingMessage>(), then: [] };
  owed.requests.add(req);
  unanswered.set(socket, owed);
  res.once('close', () => {
    owed.requests.delete(req);
    if (answeredBefore(owed.requests)) for (const next of owed.then.splice(0)) next();
  });
};

/**
 * The server's 'clientError' listener: what the parser refused is answered in the error shape,
 * after the answers to the requests pipelined before it, and the connection closes.
 */
export const answerClientError = (error: NodeJS.ErrnoException, socket: Duplex): void => {
  // A client that went away gets nothing more.
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const { code, message } = parserAnswer(error);
  const owed = unanswered.get(socket);
  if (owed && !answeredBefore(owed.requests)) owed.then.push(() => answerOnSocket(socket, code, message));
  else answerOnSocket(socket, code, message);
};

/** The server's 'connect' listener: this is no proxy (Node would drop the connection unanswered). */
export const answerConnect = (_req: IncomingMessage, socket: Duplex): void => {
  // Node hands the socket over without its own error handling.
  socket.on('error', () => socket.destroy());
  answerOnSocket(socket, 'method_not_allowed', 'CONNECT is not served here');
};

/** The server's 'checkExpectation' listener: only `Expect: 100-continue` means something (Node answers 417 with no body). */
export const answerUnmetExpectation = (req: IncomingMessage, res: ServerResponse): void => {
  answerError(res, 'malformed_request', 'the only expectation understood is Expect: 100-continue', {
    status: 417,
    unreadBodyOf: req,
  });
};
