import { createServer } from 'node:http';
import { stopWhenParentGoes } from './processes.ts';

/**
 * The ceiling of this machine for the control-plane load: Node's own HTTP server answering every
 * request with one fixed JSON body, shaped and sized like a prediction.
 */
const body = JSON.stringify({
  id: '0b9e8d6c-6f1a-4b8e-9a57-3f1d2c4b5a69',
  model: 'prognoz/echo',
  input: { text: 'hello', sleep: 0, fail: false },
  status: 'succeeded',
  output: { text: 'hello' },
  error: null,
  source: 'api',
  runtime: 0.001,
  cost: 0.01,
  created_at: '2026-11-21T00:00:00.000000Z',
  started_at: '2026-11-21T00:00:00.010000Z',
  completed_at: '2026-11-21T00:00:00.020000Z',
});
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res
      .writeHead(req.method === 'POST' ? 201 : 200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      })
      .end(body);
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(
    JSON.stringify({
      ready: { url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/` },
    }),
  );
});
stopWhenParentGoes(() => new Promise((resolve) => server.close(() => resolve())));
