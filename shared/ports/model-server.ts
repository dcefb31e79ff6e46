/**
 * The model server beside a worker, which runs the predictions the worker claims (docs/architecture.md,
 * "The worker's run"). Cog's coglet over HTTP is the real one (worker/model-server.ts).
 */
export interface ModelServer {
  health(): Promise<ModelHealth>;
  /**
   * Runs the prediction and answers how it ended. Rejects with ModelTimeout when it has not ended
   * within `timeoutMs`, ModelBusy when no slot is free, ModelUnavailable when the server went away.
   */
  predict(id: string, input: unknown, timeoutMs: number): Promise<ModelResponse>;
  /** Stops a run: its predict answers `canceled`. Stopping a run that is not going on does nothing. */
  cancel(id: string): Promise<void>;
  /** How the run of a prediction stands while it goes on, or null when nothing is known of it yet. */
  runState(id: string): Promise<RunState | null>;
}

/** How a run ended on the model server, parsed at the trust boundary. */
export interface ModelResponse {
  readonly status: 'succeeded' | 'failed' | 'canceled';
  readonly output?: unknown;
  readonly error?: string | null;
  readonly logs?: string | null;
  /** The output pieces the model streamed while it ran (an iterator's items). */
  readonly streamed?: readonly string[] | null;
  /** `predict_time` and whatever else the model recorded (Cog's custom metrics). */
  readonly metrics?: Readonly<Record<string, unknown>> | null;
}

/** How a run stands while it goes on: how far, what it logged and streamed. */
export interface RunState {
  readonly progress: number | null;
  readonly logs: string;
  readonly streamed: readonly string[];
}

export interface ModelHealth {
  readonly status: 'STARTING' | 'READY' | 'BUSY' | 'SETUP_FAILED';
  /** Why setup failed, in the model's words. */
  readonly setupError: string | null;
  /** When the server began its setup (ISO 8601): a server that began after a run was put was restarted and lost it. */
  readonly startedAt: string | null;
}

/** The model server is unreachable, was restarted, or broke the protocol: the run is lost. */
export class ModelUnavailable extends Error {
  override readonly name = 'ModelUnavailable';
}

/** The model server did not answer in the time it was given. */
export class ModelTimeout extends Error {
  override readonly name = 'ModelTimeout';
}

/** The model server has no free slot (a run of an earlier worker still holds it). */
export class ModelBusy extends Error {
  override readonly name = 'ModelBusy';
}
