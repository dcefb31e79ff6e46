import { request } from 'node:http';
import { z } from 'zod';

/** The model server's answer to POST /predictions (DESIGN §5), parsed at the trust boundary. */
export const modelResponse = z.object({
  status: z.enum(['succeeded', 'failed', 'canceled']),
  output: z.unknown().optional(),
  error: z.string().nullish(),
  logs: z.string().nullish(),
  /** The output pieces the model streamed while it ran. */
  streamed: z.array(z.string()).nullish(),
  metrics: z.object({ predict_time: z.number().optional() }).partial().nullish(),
});

/** The model server's record of a prediction while it runs: how far, what it logged and streamed. */
export const runRecord = z.object({
  progress: z.number().min(0).max(1).nullish(),
  logs: z.string().nullish(),
  streamed: z.array(z.string()).nullish(),
});
export interface RunState {
  readonly progress: number | null;
  readonly logs: string;
  readonly streamed: readonly string[];
}
export type ModelResponse = z.infer<typeof modelResponse>;

export const healthResponse = z.object({
  status: z.enum(['STARTING', 'READY', 'BUSY', 'SETUP_FAILED']),
  setup_error: z.string().nullish(),
  /** The prediction the server is busy with. */
  prediction_id: z.string().nullish(),
});
export type ModelHealth = z.infer<typeof healthResponse>;

export interface ModelClient {
  health(): Promise<ModelHealth>;
  /** Runs the prediction; rejects with ModelTimeout when it has not answered within `timeoutMs`. */
  predict(id: string, input: unknown, timeoutMs: number): Promise<ModelResponse>;
  cancel(id: string): Promise<void>;
  /** How the model's run of a prediction stands (progress 0–1 or null, logs, streamed pieces), or null when unknown. */
  runState(id: string): Promise<RunState | null>;
}

/** The model server is unreachable or broke the connection: it crashed or is not up. */
export class ModelUnavailable extends Error {
  override readonly name = 'ModelUnavailable';
}

/** The model server did not answer in the time it was given. */
export class ModelTimeout extends Error {
  override readonly name = 'ModelTimeout';
}

/** Health, cancel and progress are quick questions: a server that cannot answer them in this long is not well. */
const QUICK_CALL_MS = 5000;

/**
 * node:http rather than fetch: a prediction may run for many minutes, past fetch's fixed
 * header timeout, and the model server is a local sidecar. Every call has a deadline.
 */
const call = (baseUrl: string, method: 'GET' | 'POST', path: string, body: unknown, timeoutMs: number): Promise<{ status: number; json: unknown }> =>
  new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = request(new URL(path, baseUrl), {
      method,
      headers: payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {},
    });
    let timedOut = false;
    const broken = (error: Error) =>
      timedOut
        ? new ModelTimeout(`model server ${baseUrl} did not answer ${method} ${path} within ${timeoutMs} ms`)
        : new ModelUnavailable(`model server ${baseUrl}: ${error.message}`);
    const timer = setTimeout(() => {
      timedOut = true;
      req.destroy();
    }, timeoutMs);
    req.on('close', () => clearTimeout(timer));
    req.on('error', (error) => reject(broken(error)));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', (error) => reject(broken(error)));
      res.on('aborted', () => reject(broken(new Error('the answer was cut off'))));
      res.on('end', () => {
        try {
          resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
        } catch {
          reject(new ModelUnavailable(`model server ${baseUrl} answered ${path} with something that is not JSON`));
        }
      });
    });
    req.end(payload);
  });

export const httpModelClient = (baseUrl: string): ModelClient => ({
  async health() {
    const { json } = await call(baseUrl, 'GET', '/health-check', undefined, QUICK_CALL_MS);
    return healthResponse.parse(json);
  },
  async predict(id, input, timeoutMs) {
    const { status, json } = await call(baseUrl, 'POST', '/predictions', { id, input }, timeoutMs);
    if (status !== 200) throw new ModelUnavailable(`model server refused the prediction (HTTP ${status}): ${JSON.stringify(json)}`);
    const parsed = modelResponse.safeParse(json);
    if (!parsed.success) throw new ModelUnavailable(`model server broke the protocol: ${parsed.error.message}`);
    return parsed.data;
  },
  async cancel(id) {
    await call(baseUrl, 'POST', `/predictions/${encodeURIComponent(id)}/cancel`, {}, QUICK_CALL_MS);
  },
  async runState(id) {
    const { status, json } = await call(baseUrl, 'GET', `/predictions/${encodeURIComponent(id)}`, undefined, QUICK_CALL_MS);
    if (status !== 200) return null;
    const parsed = runRecord.safeParse(json);
    if (!parsed.success) return null;
    return { progress: parsed.data.progress ?? null, logs: parsed.data.logs ?? '', streamed: parsed.data.streamed ?? [] };
  },
});
