import { createServer, type Server } from 'node:http';
import * as z from 'zod';
import { collectCappedBody } from '../shared/adapters/capped-body.ts';
import { ENDINGS, OUTPUT_LIMITS } from '../shared/domain/endings.ts';
import type { CallbackAddress } from './callback-address.ts';
import { SharedFolders, type SharedFolder } from './shared-folders.ts';

const LOOPBACK: CallbackAddress = { listenHost: '127.0.0.1', advertisedHost: '127.0.0.1' };

/** What coglet sends to a prediction's webhook: the whole prediction as it stands (Cog's HTTP API). */
export const cogSnapshot = z.object({
  status: z.enum(['starting', 'processing', 'succeeded', 'failed', 'canceled']),
  output: z.unknown().optional(),
  error: z.string().nullish(),
  logs: z.string().nullish(),
  metrics: z.record(z.string(), z.unknown()).nullish(),
});
export type CogSnapshot = z.infer<typeof cogSnapshot>;

const TERMINAL = new Set(['succeeded', 'failed', 'canceled']);
/** A run's update carries its files as base64 (4/3 of their bytes) beside an output of up to its own limit. */
const MAX_BODY_BYTES = Math.ceil((OUTPUT_LIMITS.fileBytes * 4) / 3) + OUTPUT_LIMITS.maxBytes + 1024 * 1024;

interface Watched {
  latest: CogSnapshot | null;
  /** The longest output seen while the run went on: coglet's webhooks can overtake each other. */
  streamed: readonly unknown[] | null;
  readonly done: Promise<CogSnapshot>;
  finish(snapshot: CogSnapshot): void;
  /** Its update was too large to take in: it was ended here, and is still going on the model server. */
  cutOff: boolean;
}

/**
 * The worker's receiver of coglet's webhooks, where its model server can reach it: one address
 * per run (`/runs/<id>`), the latest state of each run kept until the run is forgotten. It also
 * serves each run's fetched file inputs to the model server (`/inputs/…`, SharedFolders).
 */
export class CogCallbacks {
  private readonly runs = new Map<string, Watched>();
  private readonly inputs = new SharedFolders();
  private server: Server | null = null;
  private baseUrl = '';

  /** Serves a run's folder of fetched inputs to the model server, at addresses it can reach (SharedFolders). */
  shareInputs(folder: string): SharedFolder {
    return this.inputs.share(folder, this.baseUrl);
  }

  /** Listens on `listenHost` and tells coglet to post to `advertisedHost` (loopback beside a local model server). */
  async listen(port: number, address: CallbackAddress = LOOPBACK): Promise<string> {
    this.server = createServer((req, res) => {
      if (this.inputs.answer(req, res)) return;
      const id = /^\/runs\/([^/?]+)$/.exec(req.url ?? '')?.[1];
      collectCappedBody(req, MAX_BODY_BYTES, (body, tooLarge) => {
        const run = id === undefined ? undefined : this.runs.get(decodeURIComponent(id));
        if (tooLarge) {
          // What the run made cannot be taken in: it ends failed here, and the model client stops it.
          if (run) this.cutOff(run);
          res.writeHead(413).end();
          return;
        }
        let parsed: ReturnType<typeof cogSnapshot.safeParse> | null = null;
        try {
          parsed = cogSnapshot.safeParse(JSON.parse(body.toString('utf8')));
        } catch {
          parsed = null;
        }
        if (req.method !== 'POST' || !parsed?.success) {
          res.writeHead(400).end();
          return;
        }
        // A run nobody watches (an orphan of an earlier worker) is acknowledged and dropped.
        if (run) this.take(run, parsed.data);
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve, reject) => {
      this.server?.once('error', reject);
      this.server?.listen(port, address.listenHost, () => resolve());
    });
    const bound = this.server.address();
    if (bound === null || typeof bound === 'string') throw new Error('the callback server has no port');
    this.baseUrl = `http://${address.advertisedHost}:${bound.port}`;
    return this.baseUrl;
  }

  /** Starts watching a run; its webhook address for coglet, and its end. */
  watch(id: string): {
    readonly url: string;
    readonly done: Promise<CogSnapshot>;
    /** Whether the run was ended here because an update of it was too large (it must be stopped on the model server). */
    readonly wasCutOff: () => boolean;
  } {
    let finish: (snapshot: CogSnapshot) => void = () => undefined;
    const done = new Promise<CogSnapshot>((resolve) => (finish = resolve));
    const run: Watched = { latest: null, streamed: null, done, finish, cutOff: false };
    this.runs.set(id, run);
    return { url: `${this.baseUrl}/runs/${encodeURIComponent(id)}`, done, wasCutOff: () => run.cutOff };
  }

  latest(id: string): { readonly snapshot: CogSnapshot; readonly streamed: readonly unknown[] | null } | null {
    const run = this.runs.get(id);
    return run?.latest ? { snapshot: run.latest, streamed: run.streamed } : null;
  }

  forget(id: string): void {
    this.runs.delete(id);
  }

  /** Stops listening; connections coglet keeps open are closed too, so the worker can exit. */
  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    const closed = new Promise((resolve) => server.close(resolve));
    server.closeAllConnections();
    await closed;
  }

  private cutOff(run: Watched): void {
    if (run.latest && TERMINAL.has(run.latest.status)) return;
    run.cutOff = true;
    const ended: CogSnapshot = {
      status: 'failed',
      error: ENDINGS.outputFilesTooLarge(MAX_BODY_BYTES, OUTPUT_LIMITS.fileBytes),
      logs: run.latest?.logs ?? '',
    };
    run.latest = ended;
    run.finish(ended);
  }

  private take(run: Watched, snapshot: CogSnapshot): void {
    if (TERMINAL.has(snapshot.status)) {
      run.latest = snapshot;
      run.finish(snapshot);
      return;
    }
    if (run.latest && TERMINAL.has(run.latest.status)) return;
    const logs = (snapshot.logs ?? '').length;
    // A late webhook carrying less than the one before it is older news.
    if (run.latest && logs < (run.latest.logs ?? '').length) return;
    run.latest = snapshot;
    if (Array.isArray(snapshot.output) && snapshot.output.length >= (run.streamed?.length ?? 0))
      run.streamed = snapshot.output;
  }
}
