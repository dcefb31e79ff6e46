import { ApiError } from '../aws-json-server.ts';

/** An error as Step Functions names it (`States.HeartbeatTimeout`, `Prognoz.ModelFailed`, …). */
export class StatesError extends Error {
  constructor(name: string, cause: string) {
    super(cause);
    this.name = name;
  }
}

interface Waiting {
  resolve(output: unknown): void;
  reject(error: Error): void;
  heartbeatMs: number | null;
  timer: NodeJS.Timeout | null;
}

/**
 * The callback pattern: a task waits on its token until the worker reports success or failure.
 * HeartbeatSeconds is enforced here, since the executor library knows nothing of heartbeats.
 */
export class TaskTokens {
  private readonly waiting = new Map<string, Waiting>();

  wait(token: string, heartbeatSeconds: number | null): Promise<unknown> {
    if (this.waiting.has(token)) throw new Error(`task token ${token} is already waiting`);
    return new Promise((resolve, reject) => {
      const entry: Waiting = {
        resolve,
        reject,
        heartbeatMs: heartbeatSeconds === null ? null : heartbeatSeconds * 1000,
        timer: null,
      };
      this.waiting.set(token, entry);
      this.arm(token, entry);
    });
  }

  private arm(token: string, entry: Waiting): void {
    if (entry.timer) clearTimeout(entry.timer);
    if (entry.heartbeatMs === null) return;
    entry.timer = setTimeout(() => {
      this.settle(token)?.reject(new StatesError('States.HeartbeatTimeout', 'no heartbeat within HeartbeatSeconds'));
    }, entry.heartbeatMs);
  }

  private settle(token: string): Waiting | undefined {
    const entry = this.waiting.get(token);
    if (!entry) return undefined;
    if (entry.timer) clearTimeout(entry.timer);
    this.waiting.delete(token);
    return entry;
  }

  private open(token: string): Waiting {
    const entry = this.waiting.get(token);
    if (!entry) throw new ApiError('TaskTimedOut', 'Task Timed Out: the task is closed');
    return entry;
  }

  heartbeat(token: string): void {
    this.arm(token, this.open(token));
  }

  succeed(token: string, output: unknown): void {
    this.open(token);
    this.settle(token)?.resolve(output);
  }

  fail(token: string, error: string, cause: string): void {
    this.open(token);
    this.settle(token)?.reject(new StatesError(error, cause));
  }

  /** Closes a token whose execution ended or was stopped; later calls on it get TaskTimedOut. */
  close(token: string): void {
    this.settle(token)?.reject(new StatesError('States.Runtime', 'the execution ended'));
  }
}
