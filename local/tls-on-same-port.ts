import type { Server } from 'node:http';
import { createServer as createHttpsServer, type ServerOptions } from 'node:https';
import type { Socket } from 'node:net';

/** The first byte of a TLS handshake record. */
const TLS_HANDSHAKE = 0x16;
const TLS_HELLO_WAIT_MS = 1000;

/**
 * Lets an HTTP server answer HTTPS on the same port: a connection that opens with a TLS handshake
 * is handed to an HTTPS server with the same request handler, any other to the HTTP server as
 * before. The local runtime's file URLs are https (Replicate's clients read only those as files)
 * while its quick start stays plain http.
 */
export const answerTlsToo = (
  server: Server,
  options: ServerOptions,
  listener: Parameters<typeof createHttpsServer>[1],
): void => {
  const secure = createHttpsServer(options, listener);
  for (const event of ['clientError', 'connect', 'checkExpectation'] as const)
    for (const handler of server.listeners(event)) secure.on(event, handler as (...args: unknown[]) => void);
  const plain = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    const decide = (first: Buffer | null) => {
      clearTimeout(waiting);
      socket.removeListener('data', decide);
      socket.pause();
      if (first) socket.unshift(first);
      if (first?.[0] === TLS_HANDSHAKE) secure.emit('connection', socket);
      else for (const handler of plain) handler.call(server, socket);
      process.nextTick(() => socket.resume());
    };
    // A TLS client speaks first, at once: a connection silent this long is plain HTTP, and its
    // own timeouts (headers not sent in time: 408) run from here.
    const waiting = setTimeout(() => decide(null), TLS_HELLO_WAIT_MS);
    socket.once('data', decide);
    socket.once('close', () => clearTimeout(waiting));
    socket.once('error', () => socket.destroy());
  });
  server.on('close', () => {
    secure.closeAllConnections();
    secure.close();
  });
};
