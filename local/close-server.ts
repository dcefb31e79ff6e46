import type { Server } from 'node:http';

/** Closes an HTTP server now: its open connections (kept-alive ones too) with it. */
export const closeServer = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
