import { createServer, request, type Server } from 'node:http';

/**
 * DynamoDB serializes conflicting writes to an item (concurrent transactions on it are refused
 * or ordered); DynamoDB Local, under concurrent requests, lets conditional writes interleave, so
 * limits that rely on conditions (funds, rates) could be overrun locally. The local runtime puts
 * this proxy in front of it: one request at a time, in arrival order.
 */
export const startSerializedProxy = async (target: string): Promise<{ endpoint: string; server: Server }> => {
  const upstream = new URL(target);
  let queue: Promise<void> = Promise.resolve();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      queue = queue.then(
        () =>
          new Promise<void>((done) => {
            const forward = request(
              { hostname: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
              (answer) => {
                res.writeHead(answer.statusCode ?? 502, answer.headers);
                answer.pipe(res);
                answer.on('end', done);
                answer.on('error', () => done());
              },
            );
            forward.on('error', (error) => {
              if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/x-amz-json-1.0' });
              res.end(JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: error.message }));
              done();
            });
            forward.end(Buffer.concat(chunks));
          }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { endpoint: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, server };
};
