import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { startLifeline, type Lifeline } from './lifeline.ts';
import { groupEnded, signalGroup } from './process-group.ts';

export interface ProcessSpec {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  /** Shown in the process list, e.g. the model server's URL. */
  readonly url?: string;
}

export interface ProcessStatus {
  readonly name: string;
  readonly pid: number | null;
  readonly restarts: number;
  readonly url?: string;
}

/**
 * SIGTERM, then SIGKILL to its whole process group (a model server's own worker with it) if the
 * process has not exited after `graceMs`; resolves once nothing of its group is left (what it left
 * there is told to end as it exits: see `start`).
 */
const terminate = async (child: ChildProcess | null, graceMs: number): Promise<void> => {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(graceMs).then(() => signalGroup(child, 'SIGKILL'))]);
  await exited;
  await groupEnded(child, graceMs);
};

/**
 * Keeps the worker and model servers running as an orchestrator would: a process that dies is
 * started again after a short pause. Output is prefixed with the process name.
 */
export class Supervisor {
  private readonly children = new Map<
    string,
    { spec: ProcessSpec; child: ChildProcess | null; restarts: number; stopped: boolean }
  >();
  private stopping = false;
  // Should this process end without stopping them (a fault, a kill), its children's groups end
  // with it, a model server's own worker included: none is left running, orphaned.
  private readonly lifeline: Lifeline;
  /** Whether the lifeline is this supervisor's own, to close when it stops (else its giver closes it). */
  private readonly ownsLifeline: boolean;

  constructor(
    private readonly output: (line: string) => void,
    lifeline?: Lifeline,
  ) {
    this.lifeline = lifeline ?? startLifeline();
    this.ownsLifeline = lifeline === undefined;
  }

  start(spec: ProcessSpec): void {
    const entry = { spec, child: null as ChildProcess | null, restarts: 0, stopped: false };
    this.children.set(spec.name, entry);
    const launch = () => {
      const child = spawn(spec.command, [...spec.args], {
        cwd: spec.cwd,
        env: { ...process.env, ...spec.env },
        stdio: ['ignore', 'pipe', 'pipe'],
        // Each in a process group of its own, as a task is apart from its orchestrator: a Ctrl-C
        // in the terminal reaches only the runtime, which stops them in order (stopAll). Sent to
        // a model server along with its own worker, it left that worker running, orphaned.
        detached: true,
      });
      entry.child = child;
      const pgid = child.pid;
      if (pgid !== undefined) this.lifeline.watch(pgid);
      const relay = (chunk: Buffer) => {
        for (const line of chunk.toString('utf8').split('\n'))
          if (line.trim() !== '') this.output(`[${spec.name}] ${line}`);
      };
      child.stdout?.on('data', relay);
      child.stderr?.on('data', relay);
      // A process that could not start (its program is missing) reports an error and may never exit.
      let ended = false;
      const restart = (why: string) => {
        if (ended) return;
        ended = true;
        // As an orchestrator stops a whole task when its essential container exits, stopped or
        // crashed: what the process left in its group (a model server's own worker, its run-folder
        // pruner, which sleeps up to a minute between checks) must not outlive it.
        signalGroup(child, 'SIGTERM');
        if (pgid !== undefined) this.lifeline.release(pgid);
        if (entry.child === child) entry.child = null;
        if (this.stopping || entry.stopped) return;
        this.output(`[${spec.name}] ${why}; restarting`);
        entry.restarts += 1;
        void sleep(500).then(() => {
          if (!this.stopping && !entry.stopped) launch();
        });
      };
      child.once('exit', (code, signal) => restart(`exited (${signal ?? code})`));
      child.on('error', (error) => restart(`failed: ${error.message}`));
    };
    launch();
  }

  /**
   * Stops one process for good (not restarted), as ECS stops a task it scales in: SIGTERM, and
   * SIGKILL if it has not exited after `graceMs`. A worker drains in that time.
   */
  async stop(name: string, graceMs: number): Promise<void> {
    const entry = this.children.get(name);
    if (!entry) return;
    this.children.delete(name);
    // No restart: the exit handler sees the entry stopped.
    entry.stopped = true;
    await terminate(entry.child, graceMs);
  }

  status(): ProcessStatus[] {
    return [...this.children.values()].map(({ spec, child, restarts }) => ({
      name: spec.name,
      pid: child?.pid ?? null,
      restarts,
      ...(spec.url ? { url: spec.url } : {}),
    }));
  }

  async stopAll(): Promise<void> {
    this.stopping = true;
    await Promise.all([...this.children.values()].map(({ child }) => terminate(child, 5000)));
    if (this.ownsLifeline) await this.lifeline.close();
  }
}
