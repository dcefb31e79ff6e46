import { isTerminal, type Prediction } from '../domain/prediction.ts';

/** Replicate's stream events (interface: Compatibility). */
export type StreamEventName = 'output' | 'logs' | 'error' | 'done';

export interface StreamEvent {
  readonly event: StreamEventName;
  readonly data: string;
}

/** What a stream has sent so far of a prediction. */
export interface StreamPosition {
  readonly pieces: number;
  readonly logs: string;
}

export const streamStart = (): StreamPosition => ({ pieces: 0, logs: '' });

export interface StreamStep {
  readonly events: readonly StreamEvent[];
  readonly position: StreamPosition;
  /** The prediction has ended: `done` was the last event. */
  readonly done: boolean;
}

const newLogLines = (sent: string, now: string): string[] => {
  // The kept logs are a tail: once it has moved past what was sent, what is kept is all new.
  const fresh = now.startsWith(sent) ? now.slice(sent.length) : now;
  return fresh.split('\n').filter((line) => line.trim() !== '');
};

const outputData = (output: unknown): string => (typeof output === 'string' ? output : JSON.stringify(output));

/**
 * The events that bring a stream from `position` up to the prediction as it stands: new log
 * lines, new output pieces as the model streamed them, and at the end the rest — for a model that
 * streamed nothing, its whole output as one `output` event — then `error` (failed) and `done`.
 * `finalOutput` is the succeeded prediction's output, read from wherever it is stored.
 */
export const eventsSince = (prediction: Prediction, position: StreamPosition, finalOutput?: unknown): StreamStep => {
  const events: StreamEvent[] = newLogLines(position.logs, prediction.logs).map((data) => ({ event: 'logs', data }));
  const pieces =
    prediction.status === 'processing' || prediction.status === 'succeeded' ? (prediction.streamed ?? []) : [];
  for (const piece of pieces.slice(position.pieces)) events.push({ event: 'output', data: piece });
  const moved: StreamPosition = { pieces: Math.max(position.pieces, pieces.length), logs: prediction.logs };
  // The metrics the model recorded ride on `done`, as on Cog's completed event: Replicate's
  // clients know no event of their own for them.
  const metrics =
    isTerminal(prediction) && prediction.modelMetrics !== null ? { metrics: prediction.modelMetrics } : {};
  switch (prediction.status) {
    case 'succeeded':
      if (moved.pieces === 0) events.push({ event: 'output', data: outputData(finalOutput ?? null) });
      events.push({ event: 'done', data: JSON.stringify(metrics) });
      return { events, position: moved, done: true };
    case 'failed':
      events.push(
        { event: 'error', data: prediction.error },
        { event: 'done', data: JSON.stringify({ reason: 'error', ...metrics }) },
      );
      return { events, position: moved, done: true };
    case 'canceled':
      events.push({
        event: 'done',
        data: JSON.stringify({
          reason: 'canceled',
          ...(prediction.error === null ? {} : { detail: prediction.error }),
          ...metrics,
        }),
      });
      return { events, position: moved, done: true };
    default:
      return { events, position: moved, done: false };
  }
};

/** One event in the text/event-stream format; every event has an id (Replicate's Python client drops events without one). */
export const formatEvent = (event: StreamEvent, id: number): string =>
  `event: ${event.event}\nid: ${id}\n${event.data
    .split(/\r?\n/)
    .map((line) => `data: ${line}`)
    .join('\n')}\n\n`;
