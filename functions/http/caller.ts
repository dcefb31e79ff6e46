import type { Writable } from 'node:stream';
import type { Context } from 'aws-lambda';

/** Each streamed invocation's signal, by its Lambda context (one context per invocation). */
const signals = new WeakMap<Context, AbortSignal>();
const NEVER = new AbortController().signal;

/**
 * Aborted when the caller of a streamed route has gone away: its response stream closed before
 * the answer was finished, or broke. A handler that waits (a synchronous create, an event stream)
 * stops waiting then; the prediction itself goes on. Buffered routes get a signal that never fires:
 * they answer quickly, and run to their end as Lambda runs them.
 */
export const callerGone = (context: Context): AbortSignal => signals.get(context) ?? NEVER;

export interface CallerWatch {
  /** True once the caller went away. */
  readonly gone: boolean;
}

/**
 * Watches a streamed invocation's response stream for its caller leaving. The local front closes
 * the stream as the socket closes; on AWS the stream closes or breaks only when Lambda's runtime
 * learns of it (docs/reliability.md, "Limits, and clients that misbehave", says what a caller who left costs there).
 */
export const watchCaller = (stream: Writable, context: Context): CallerWatch => {
  const controller = new AbortController();
  stream.once('close', () => {
    if (!stream.writableFinished) controller.abort();
  });
  // Handled here so that a stream broken by its caller is never an unhandled 'error'.
  stream.on('error', () => controller.abort());
  signals.set(context, controller.signal);
  return {
    get gone() {
      return controller.signal.aborted;
    },
  };
};
