import type { Server } from 'node:http';

/** Starts `server` on a free port of the loopback interface; resolves with its http URL. */
export const listenOnLoopback = async (server: Server): Promise<string> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
};
