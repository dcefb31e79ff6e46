import { createServer, type Server } from 'node:http';
import type { PredictionView } from '../shared/api/prediction-view.ts';

export interface Completions {
  /** Where the service is to send completion webhooks. */
  readonly url: string;
  /** The prediction as its completion webhook carried it. */
  ended(id: string, timeoutMs: number): Promise<PredictionView>;
  close(): Promise<void>;
}

/**
 * A webhook receiver on loopback that hands each prediction's completion to whoever waits for it:
 * the benchmark learns of an end without polling the API while the model runs.
 */
export const receiveCompletions = async (): Promise<Completions> => {
  const arrived = new Map<string, PredictionView>();
  const waiting = new Map<string, (view: PredictionView) => void>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      res.writeHead(204).end();
      const view = JSON.parse(Buffer.concat(chunks).toString('utf8')) as PredictionView;
      if (!['succeeded', 'failed', 'canceled'].includes(view.status)) return;
      arrived.set(view.id, view);
      waiting.get(view.id)?.(view);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/completed`,
    ended: (id, timeoutMs) =>
      new Promise<PredictionView>((resolve, reject) => {
        const already = arrived.get(id);
        if (already) return resolve(already);
        const timer = setTimeout(() => {
          waiting.delete(id);
          reject(new Error(`no completion webhook for ${id} within ${timeoutMs} ms`));
        }, timeoutMs);
        waiting.set(id, (view) => {
          clearTimeout(timer);
          waiting.delete(id);
          resolve(view);
        });
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
