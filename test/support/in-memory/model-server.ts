import {
  ModelBusy,
  ModelTimeout,
  ModelUnavailable,
  type ModelHealth,
  type ModelResponse,
  type ModelServer,
  type RunState,
} from '../../../shared/ports/model-server.ts';

/** One change of a run while it goes on, `afterMs` after it began. */
export interface RunUpdate {
  readonly afterMs: number;
  readonly progress?: number;
  /** Appended to the run's logs. */
  readonly logs?: string;
  /** Appended to what the run streamed. */
  readonly streamed?: readonly string[];
}

/** What a run does: its changes in order, then its end `afterMs` after it began. */
export interface RunScript {
  readonly updates?: readonly RunUpdate[];
  readonly afterMs: number;
  readonly end: Omit<ModelResponse, 'logs' | 'streamed'>;
}

/**
 * The echo model (models/echo/predict.py) as a script: it logs how long it sleeps, sleeps (its
 * progress rising), then echoes its text `repeat` times, or fails when asked to.
 */
export const echoScript = (input: Readonly<Record<string, unknown>>): RunScript => {
  const seconds = typeof input.sleep === 'number' ? input.sleep : 0;
  const text = typeof input.text === 'string' ? input.text : 'hello';
  const repeat = typeof input.repeat === 'number' ? input.repeat : 1;
  const steps = seconds > 0 ? [0.25, 0.5, 0.75] : [];
  return {
    updates: [
      { afterMs: 0, logs: `sleeping ${seconds} s\n` },
      ...steps.map((part) => ({ afterMs: part * seconds * 1000, progress: part })),
    ],
    afterMs: seconds * 1000,
    end:
      input.fail === true
        ? {
            status: 'failed',
            error: 'prognoz/echo failed on purpose (input fail: true)',
            metrics: { predict_time: seconds },
          }
        : {
            status: 'succeeded',
            output: { text: text.repeat(repeat), file: null },
            metrics: { predict_time: seconds, progress: 1 },
          },
  };
};

interface Run {
  readonly input: unknown;
  state: { progress: number | null; logs: string; streamed: string[] };
  readonly stop: AbortController;
  readonly ended: Promise<ModelResponse>;
  /** The server went away while it ran. */
  lost: boolean;
}

export interface InMemoryModelServer extends ModelServer {
  /** The input each run was given, by prediction id. */
  readonly given: Map<string, unknown>;
  /** The runs canceled, in order. */
  readonly canceled: string[];
  /** The server goes away: the runs going on are lost, and it answers nothing until `restart`. */
  lose(): void;
  restart(): void;
  /** The runs going on now. */
  running(): number;
}

/**
 * A model server in memory that runs each prediction by a script (the echo model's unless given)
 * on the given clock: the twin of coglet's HTTP client (worker/model-server.ts), held to the same
 * contract (test/contract/model-server.contract.ts).
 */
export const inMemoryModelServer = (options: {
  readonly now: () => number;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly slots?: number;
  readonly script?: (input: Readonly<Record<string, unknown>>) => RunScript;
}): InMemoryModelServer => {
  const slots = options.slots ?? 1;
  const script = options.script ?? echoScript;
  const runs = new Map<string, Run>();
  const given = new Map<string, unknown>();
  const canceled: string[] = [];
  let startedAt = new Date(options.now()).toISOString();
  let down: AbortController | null = null;
  const up = () => {
    if (down !== null) throw new ModelUnavailable('the model server is gone');
  };

  const drive = async (run: Run, plan: RunScript, beganMs: number): Promise<ModelResponse> => {
    const until = async (afterMs: number) => {
      await options.sleep(Math.max(0, beganMs + afterMs - options.now()), run.stop.signal);
      return !run.stop.signal.aborted;
    };
    for (const update of plan.updates ?? []) {
      if (!(await until(update.afterMs))) break;
      run.state = {
        progress: update.progress ?? run.state.progress,
        logs: run.state.logs + (update.logs ?? ''),
        streamed: [...run.state.streamed, ...(update.streamed ?? [])],
      };
    }
    const finished = !run.stop.signal.aborted && (await until(plan.afterMs));
    const { logs, streamed } = run.state;
    return finished
      ? { ...plan.end, logs, streamed: plan.end.status === 'succeeded' && streamed.length > 0 ? streamed : null }
      : { status: 'canceled', logs, streamed: null, metrics: null };
  };

  return {
    given,
    canceled,
    lose: () => {
      down = new AbortController();
      down.abort();
      for (const run of runs.values()) {
        run.lost = true;
        run.stop.abort();
      }
      runs.clear();
    },
    restart: () => {
      down = null;
      startedAt = new Date(options.now() + 1).toISOString();
    },
    running: () => runs.size,
    health: () =>
      Promise.resolve().then((): ModelHealth => {
        up();
        return { status: runs.size >= slots ? 'BUSY' : 'READY', setupError: null, startedAt };
      }),
    async predict(id, input, timeoutMs) {
      up();
      if (runs.size >= slots) throw new ModelBusy('the model server has no free slot');
      const record = (input ?? {}) as Readonly<Record<string, unknown>>;
      given.set(id, input);
      const stop = new AbortController();
      const beganMs = options.now();
      const run: Run = {
        input,
        state: { progress: null, logs: '', streamed: [] },
        stop,
        lost: false,
        ended: Promise.resolve().then(() => drive(run, script(record), beganMs)),
      };
      runs.set(id, run);
      void run.ended.finally(() => runs.get(id) === run && runs.delete(id));
      const timedOut = new AbortController();
      const timeout = options
        .sleep(timeoutMs, timedOut.signal)
        .then(() =>
          timedOut.signal.aborted ? never : Promise.reject(new ModelTimeout(`no end within ${timeoutMs} ms`)),
        );
      try {
        const ended = await Promise.race([run.ended, timeout]);
        if (run.lost) throw new ModelUnavailable('the model server went away during the run');
        return ended;
      } finally {
        timedOut.abort();
      }
    },
    cancel: (id) =>
      Promise.resolve().then(() => {
        up();
        const run = runs.get(id);
        if (run === undefined) return;
        canceled.push(id);
        run.stop.abort();
      }),
    runState: (id) =>
      Promise.resolve().then((): RunState | null => {
        const run = runs.get(id);
        return run === undefined ? null : { ...run.state, streamed: [...run.state.streamed] };
      }),
  };
};

const never = new Promise<never>(() => undefined);
