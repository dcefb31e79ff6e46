import { Agent, createServer, request, type Server } from 'node:http';
import { awsOperationOf } from './aws-json-server.ts';
import { listenOnLoopback } from './loopback-server.ts';

export interface ServiceProxyOptions {
  /**
   * Decides when each request is forwarded (`forward` once its turn comes; called as it arrives,
   * so it sees requests in arrival order): local/dynamodb-request-order.ts. Each is forwarded at
   * once when absent.
   */
  readonly order?: (operation: string, body: Buffer, forward: () => Promise<void>) => Promise<void>;
  /** May rewrite a request's body before it is forwarded (operation from X-Amz-Target). */
  readonly prepare?: (operation: string, body: Buffer) => Buffer;
  /** Sees each request and its answer, for the call meter. */
  readonly observe: (operation: string, request: Buffer, response: Buffer, status: number) => void;
}

/**
 * Sits between the service and an emulator in a process of its own (DynamoDB Local), so that the
 * local runtime can order and count the calls the service makes.
 */
export const startServiceProxy = async (
  target: string,
  options: ServiceProxyOptions,
): Promise<{ endpoint: string; server: Server }> => {
  const upstream = new URL(target);
  // Connections to the emulator are kept open: a new one per call costs more than the call.
  const agent = new Agent({ keepAlive: true });
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const operation = awsOperationOf(req);
      const body = options.prepare ? options.prepare(operation, Buffer.concat(chunks)) : Buffer.concat(chunks);
      const headers = { ...req.headers, 'content-length': String(body.length) };
      const forward = () =>
        new Promise<void>((done) => {
          const outgoing = request(
            { hostname: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers, agent },
            (answer) => {
              const answerChunks: Buffer[] = [];
              answer.on('data', (chunk: Buffer) => answerChunks.push(chunk));
              answer.on('end', () => {
                const answerBody = Buffer.concat(answerChunks);
                res.writeHead(answer.statusCode ?? 502, answer.headers).end(answerBody);
                options.observe(operation, body, answerBody, answer.statusCode ?? 502);
                done();
              });
              answer.on('error', () => done());
            },
          );
          outgoing.on('error', (error) => {
            if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/x-amz-json-1.0' });
            res.end(JSON.stringify({ __type: 'InternalFailure', message: error.message }));
            done();
          });
          outgoing.end(body);
        });
      void (options.order ? options.order(operation, body, forward) : forward());
    });
  });
  server.on('close', () => agent.destroy());
  return { endpoint: await listenOnLoopback(server), server };
};
