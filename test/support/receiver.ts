import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterAll, beforeAll } from 'vitest';
import { closeServer } from '../../local/close-server.ts';

/** One webhook delivery as a real receiver got it. */
export interface Delivery {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** What the receiver answered. */
  readonly answered: number;
}

export interface Receiver {
  /** The base URL; deliveries go to `${url}/<anything>`. */
  readonly url: string;
  readonly deliveries: Delivery[];
  /** The deliveries it accepted (2xx) for a prediction, by the prediction id in the body. */
  accepted(predictionId: string): Delivery[];
  close(): Promise<void>;
}

/**
 * A real HTTP receiver on loopback. `answer` decides each response's status from the request
 * (the default accepts everything).
 */
export const startReceiver = async (
  answer: (delivery: Omit<Delivery, 'answered'>) => number = () => 204,
): Promise<Receiver> => {
  const deliveries: Delivery[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      const status = answer(request);
      deliveries.push({ ...request, answered: status });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const idOf = (delivery: Delivery): string | undefined => {
    try {
      return (JSON.parse(delivery.body) as { id?: string }).id;
    } catch {
      return undefined;
    }
  };
  return {
    url,
    deliveries,
    accepted: (predictionId) =>
      deliveries.filter((d) => d.answered >= 200 && d.answered < 300 && idOf(d) === predictionId),
    close: () => closeServer(server),
  };
};

/** A receiver that accepts everything, started before a test file's tests and closed after them. */
export const receiverForFile = (): (() => Receiver) => {
  let receiver: Receiver | undefined;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(() => receiver?.close());
  return () => {
    if (!receiver) throw new Error('the receiver is not started yet');
    return receiver;
  };
};
