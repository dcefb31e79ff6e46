/** What a model's run leaves on its prediction beside the output: its log and its streamed pieces. */

/** The model's log text a prediction keeps: the tail, so the latest lines are never lost. */
export const LOGS_KEPT_CHARS = 16 * 1024;
/** The streamed output pieces a prediction keeps, in characters; past it, readers see the final output. */
export const STREAMED_KEPT_CHARS = 32 * 1024;

export const keepLogTail = (logs: string): string =>
  logs.length <= LOGS_KEPT_CHARS ? logs : logs.slice(logs.length - LOGS_KEPT_CHARS);

/** The progress a prediction keeps: the model's fraction of the work done, held to 0–1. */
export const keepProgress = (progress: number): number => Math.min(1, Math.max(0, progress));

/** The streamed pieces while they fit, else null (readers fall back to the final output). */
export const keepStreamed = (pieces: readonly string[]): readonly string[] | null =>
  pieces.reduce((chars, piece) => chars + piece.length, 0) <= STREAMED_KEPT_CHARS ? pieces : null;

/** A model's own metrics (Cog's `record_metric`), as JSON: what a prediction keeps of them, at most. */
export const MODEL_METRICS_KEPT_BYTES = 8 * 1024;

/** The metrics a model recorded, while they fit; else none (they are the model's, not the service's). */
export const keepModelMetrics = (
  metrics: Readonly<Record<string, unknown>> | null,
): Readonly<Record<string, unknown>> | null =>
  metrics === null ||
  Object.keys(metrics).length === 0 ||
  Buffer.byteLength(JSON.stringify(metrics)) > MODEL_METRICS_KEPT_BYTES
    ? null
    : metrics;

/** What a worker learned from the model's run, recorded with the ending it reports. */
export interface RunReport {
  readonly logs?: string;
  readonly predictTimeMs?: number | null;
  /** The metrics the model recorded itself (beside predict_time), nested as Cog nests dotted names. */
  readonly modelMetrics?: Readonly<Record<string, unknown>> | null;
  readonly streamed?: readonly string[] | null;
}
