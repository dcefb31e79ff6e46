import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import * as z from 'zod';
import type { ModelDefinition } from '../shared/catalog/definition.ts';
import type { CogCallbacks, CogSnapshot } from './cog-callbacks.ts';
import {
  ModelBusy,
  ModelTimeout,
  ModelUnavailable,
  type ModelHealth,
  type ModelResponse,
  type ModelServer,
} from '../shared/ports/model-server.ts';

const cogHealth = z.object({
  status: z.string(),
  setup: z.object({ started_at: z.string().nullish(), logs: z.string().nullish() }).partial().nullish(),
});

/** Health, cancel and start are quick questions: a server that cannot answer them in this long is not well. */
const QUICK_CALL_MS = 5000;
/**
 * While a run goes on, how often the worker makes sure the server that runs it is still the same.
 * An async run holds no connection whose break would tell of a dead server, so this is how soon a
 * lost run goes back to the queue: well within the time a restarted server takes to be READY (a
 * health check on loopback costs next to nothing).
 */
const LIVENESS_MS = 500;

/**
 * Whether a server that began its setup at `startedAt` (its health check's) is not the one that took
 * a run put at `putAtMs`: a server takes runs only once set up, so the one that took it began before,
 * and a server that began after was started since and lost the run. Nothing is asked of the server
 * before a run for it (a round trip on every prediction's path). The worker and its model server
 * share one clock: a container of the same task, or a process beside it.
 */
export const restartedSince = (startedAt: string | null, putAtMs: number): boolean =>
  startedAt !== null && Date.parse(startedAt) > putAtMs;

/**
 * The updates of a run the worker asks coglet for: its logs and its end, and each piece of a model
 * that streams. `start` tells nothing the claim did not, and a finished object output comes with
 * the end: each update left out is an HTTP exchange fewer per run on both sides.
 */
const runEvents = (streams: boolean): readonly string[] =>
  streams ? ['output', 'logs', 'completed'] : ['logs', 'completed'];
/**
 * coglet frees a run's slot a moment after it reports the run's end, and refuses (409) a run that
 * comes in that moment: a refused start is tried again for this long before the slot counts as taken.
 */
const SLOT_RELEASE_MS = 2000;
const SLOT_RETRY_MS = 50;

const call = (
  baseUrl: string,
  method: 'GET' | 'POST' | 'PUT',
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: unknown }> =>
  new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = request(new URL(path, baseUrl), {
      method,
      headers: {
        ...headers,
        ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}),
      },
      timeout: QUICK_CALL_MS,
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${QUICK_CALL_MS} ms`)));
    req.on('error', (error) => reject(new ModelUnavailable(`model server ${baseUrl}: ${error.message}`)));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', (error) => reject(new ModelUnavailable(`model server ${baseUrl}: ${error.message}`)));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown = null;
        try {
          json = text === '' ? null : JSON.parse(text);
        } catch {
          json = text;
        }
        resolve({ status: res.statusCode ?? 0, json });
      });
    });
    req.end(payload);
  });

/** coglet says `… Setup failed: setup failed: RuntimeError: why`; the caller wants the last part. */
const setupErrorOf = (logs: string | null | undefined): string => {
  const text = (logs ?? '').trim();
  const marker = text.toLowerCase().lastIndexOf('setup failed: ');
  const reason = marker >= 0 ? text.slice(marker + 'setup failed: '.length) : text.split('\n').filter(Boolean).pop();
  return reason?.trim() || 'the model failed its setup without a message';
};

const progressOf = (snapshot: CogSnapshot): number | null => {
  const value = snapshot.metrics?.progress;
  return typeof value === 'number' && Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : null;
};

/**
 * coglet reports a failure as `Prediction failed: Prediction failed: ModelError: why` (an async
 * predictor's as `Prediction failed: Async prediction failed: ModelError: why`): the caller reads
 * the model's own words (a model's `ModelError`), or the exception's type and message.
 */
export const modelErrorOf = (error: string | null | undefined): string | null => {
  if (error === null || error === undefined) return null;
  const stripped = error.replace(/^(?:\s*(?:Async )?Prediction failed:\s*)+/i, '').replace(/^ModelError:\s*/, '');
  return stripped.trim() || error;
};

const piecesOf = (items: readonly unknown[] | null): string[] =>
  (items ?? []).map((item) => (typeof item === 'string' ? item : JSON.stringify(item)));

/**
 * Drives a Cog model server (coglet) over Cog's HTTP API (architecture: Model protocol): a run is started with
 * `PUT /predictions/{id}` and `Prefer: respond-async`, reports itself to the worker's callback
 * receiver (logs, metrics such as `progress`, an iterator's output so far, then its end), and is
 * stopped with `POST /predictions/{id}/cancel`.
 */
export const cogModelServer = (
  baseUrl: string,
  callbacks: CogCallbacks,
  model: Pick<ModelDefinition, 'streams'>,
): ModelServer => {
  const health = async (): Promise<ModelHealth> => {
    const { json } = await call(baseUrl, 'GET', '/health-check', undefined);
    const parsed = cogHealth.safeParse(json);
    if (!parsed.success)
      throw new ModelUnavailable(`model server ${baseUrl} answered its health check with something else`);
    const { status, setup } = parsed.data;
    const startedAt = setup?.started_at ?? null;
    if (status === 'READY' || status === 'BUSY' || status === 'STARTING')
      return { status, setupError: null, startedAt };
    if (status === 'SETUP_FAILED' || status === 'DEFUNCT')
      return { status: 'SETUP_FAILED', setupError: setupErrorOf(setup?.logs), startedAt };
    return { status: 'STARTING', setupError: null, startedAt };
  };
  const cancel = async (id: string): Promise<void> => {
    await call(baseUrl, 'POST', `/predictions/${encodeURIComponent(id)}/cancel`, undefined);
  };
  return {
    health,
    cancel,
    async predict(id, input, timeoutMs) {
      const watched = callbacks.watch(id);
      // When the attempt that the server took was sent (restartedSince).
      let putAtMs = 0;
      try {
        const start = () => {
          putAtMs = Date.now();
          return call(
            baseUrl,
            'PUT',
            `/predictions/${encodeURIComponent(id)}`,
            { id, input, webhook: watched.url, webhook_events_filter: runEvents(model.streams) },
            { prefer: 'respond-async' },
          );
        };
        const slotDeadline = Date.now() + SLOT_RELEASE_MS;
        let started = await start();
        while (started.status === 409 && Date.now() < slotDeadline) {
          await sleep(SLOT_RETRY_MS);
          started = await start();
        }
        if (started.status === 409) throw new ModelBusy(`model server ${baseUrl} has no free slot`);
        if (started.status === 422)
          return { status: 'failed', error: `the model refused its input: ${JSON.stringify(started.json)}` };
        if (started.status !== 202 && started.status !== 200) {
          throw new ModelUnavailable(
            `model server refused the run (HTTP ${started.status}): ${JSON.stringify(started.json)}`,
          );
        }
        const deadline = Date.now() + timeoutMs;
        const stopWatching = new AbortController();
        const lost = (async () => {
          while (!stopWatching.signal.aborted) {
            await sleep(LIVENESS_MS, undefined, { signal: stopWatching.signal }).catch(() => undefined);
            if (stopWatching.signal.aborted) return;
            if (Date.now() > deadline)
              throw new ModelTimeout(`model server ${baseUrl} did not end the run within ${timeoutMs} ms`);
            if (restartedSince((await health()).startedAt, putAtMs))
              throw new ModelUnavailable(`model server ${baseUrl} was restarted during the run`);
          }
        })();
        try {
          const ended = await Promise.race([watched.done, lost.then(() => never)]);
          if (watched.wasCutOff()) await cancel(id).catch(() => undefined);
          return {
            status: ended.status as ModelResponse['status'],
            output: ended.output,
            error: modelErrorOf(ended.error),
            logs: ended.logs ?? '',
            streamed: model.streams && Array.isArray(ended.output) ? piecesOf(ended.output) : null,
            metrics: ended.metrics ?? null,
          };
        } finally {
          stopWatching.abort();
          await lost.catch(() => undefined);
        }
      } finally {
        callbacks.forget(id);
      }
    },
    runState(id) {
      const latest = callbacks.latest(id);
      if (!latest) return Promise.resolve(null);
      // coglet also sends a finished object output, wrapped in a list, before its end: only an iterator's items are pieces.
      return Promise.resolve({
        progress: progressOf(latest.snapshot),
        logs: latest.snapshot.logs ?? '',
        streamed: model.streams ? piecesOf(latest.streamed) : [],
      });
    },
  };
};

const never = new Promise<never>(() => undefined);
