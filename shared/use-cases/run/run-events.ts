import { webhookWants, type Prediction } from '../../domain/prediction.ts';
import type { RunUpdate } from '../../ports/prediction-store.ts';
import type { RunEvent } from '../../workflow/messages.ts';
import type { RunState } from '../../ports/model-server.ts';

/** Progress is written to the prediction in steps of at least this much, to spare the table. */
const PROGRESS_STEP = 0.05;
/** `output` and `logs` webhooks are sent at most this often (interface: Webhooks). */
export const RUN_EVENT_INTERVAL_MS = 500;

/** What a worker has recorded of a run so far, and when it last sent each run webhook. */
export interface RunWatch {
  readonly progress: number;
  readonly logs: string;
  readonly streamed: number;
  /** Changes not yet sent to the webhook (held back by the interval). */
  readonly unsent: ReadonlySet<RunEvent>;
  readonly sentAtMs: Readonly<Partial<Record<RunEvent, number>>>;
}

export const freshWatch = (): RunWatch => ({ progress: 0, logs: '', streamed: 0, unsent: new Set(), sentAtMs: {} });

export interface RunStep {
  /** What to record on the prediction (empty: nothing changed enough). */
  readonly update: RunUpdate;
  /** The webhooks to send now. */
  readonly events: readonly RunEvent[];
  readonly watch: RunWatch;
}

/**
 * From the model's run as it stands now, what the worker records and which webhooks it sends:
 * only those the prediction's filter asks for, `output` and `logs` no more often than
 * RUN_EVENT_INTERVAL_MS, and a change held back by the interval goes out with a later look.
 */
export const stepRun = (
  prediction: Pick<Prediction, 'webhook' | 'webhookEvents'>,
  watch: RunWatch,
  state: RunState,
  nowMs: number,
): RunStep => {
  const progressed = state.progress !== null && state.progress - watch.progress >= PROGRESS_STEP;
  const logged = state.logs !== watch.logs;
  const streamed = state.streamed.length !== watch.streamed;
  const update: RunUpdate = {
    ...(progressed && state.progress !== null ? { progress: state.progress } : {}),
    ...(logged ? { logs: state.logs } : {}),
    ...(streamed ? { streamed: state.streamed } : {}),
  };
  const asked = (event: RunEvent) => webhookWants(prediction, event);
  const unsent = new Set(watch.unsent);
  if (streamed && asked('output')) unsent.add('output');
  if (logged && asked('logs')) unsent.add('logs');
  const events = [...unsent].filter((event) => nowMs - (watch.sentAtMs[event] ?? -Infinity) >= RUN_EVENT_INTERVAL_MS);
  for (const event of events) unsent.delete(event);
  return {
    update,
    events,
    watch: {
      progress: progressed && state.progress !== null ? state.progress : watch.progress,
      logs: state.logs,
      streamed: state.streamed.length,
      unsent,
      sentAtMs: { ...watch.sentAtMs, ...Object.fromEntries(events.map((event) => [event, nowMs])) },
    },
  };
};
