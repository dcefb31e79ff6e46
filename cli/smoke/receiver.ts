import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectCappedBody } from '../../shared/adapters/capped-body.ts';

/** One webhook delivery as it arrived: its raw body is what the signature covers. */
export interface ReceivedDelivery {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** Unix seconds when it arrived, for the timestamp check (interface: Webhook signing). */
  readonly receivedAtSeconds: number;
}

export interface WebhookReceiver {
  readonly port: number;
  /** The first delivery (already arrived or to come) that `matches`; rejects when `signal` aborts. */
  next(matches: (delivery: ReceivedDelivery) => boolean, signal: AbortSignal): Promise<ReceivedDelivery>;
  close(): Promise<void>;
}

/** Deliveries are predictions; the largest outputs live in the outputs bucket, never in a body this size. */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** A real HTTP receiver that accepts every POST (204) and keeps what came. */
export const startReceiver = async (listen: { host: string; port: number }): Promise<WebhookReceiver> => {
  const deliveries: ReceivedDelivery[] = [];
  const waiting = new Set<() => void>();
  const server = createServer((req, res) => {
    collectCappedBody(req, MAX_BODY_BYTES, (body, tooLarge) => {
      if (req.method !== 'POST' || tooLarge) return void res.writeHead(req.method === 'POST' ? 413 : 405).end();
      deliveries.push({
        headers: req.headers,
        body: body.toString('utf8'),
        receivedAtSeconds: Math.floor(Date.now() / 1000),
      });
      res.writeHead(204).end();
      for (const wake of waiting) wake();
    });
  });
  server.listen(listen.port, listen.host);
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    next: (matches, signal) =>
      new Promise((resolve, reject) => {
        const look = () => {
          const found = deliveries.find(matches);
          if (!found) return;
          stop();
          resolve(found);
        };
        const abort = () => {
          stop();
          reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
        };
        const stop = () => {
          waiting.delete(look);
          signal.removeEventListener('abort', abort);
        };
        if (signal.aborted) return abort();
        waiting.add(look);
        signal.addEventListener('abort', abort);
        look();
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
