import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

export interface ReadyChild<T> {
  readonly child: ChildProcess;
  readonly pid: number;
  /** The JSON object the child printed on the line that said it was ready. */
  readonly ready: T;
  stop(): Promise<void>;
}

/**
 * Starts a process that prints one JSON line starting with `{"ready"` once it serves; other
 * output goes to `log`. Failing to get there within `timeoutMs` is an error. The child is given
 * an IPC channel it never uses for messages: however this process ends, killed outright included,
 * the channel closes and the child stops what it started (`stopWhenParentGoes`).
 */
export const startReadyChild = async <T>(
  command: string,
  args: readonly string[],
  options: { env?: Record<string, string>; timeoutMs: number; log: (line: string) => void },
): Promise<ReadyChild<T>> => {
  const child = spawn(command, [...args], {
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const { stdout, stderr } = child;
  if (!stdout || !stderr) throw new Error(`${command}: its output was not piped`);
  createInterface({ input: stderr }).on('line', options.log);
  const lines = createInterface({ input: stdout });
  const ready = await new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${command} ${args.join(' ')} was not ready in ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
    child.once('exit', (code) =>
      reject(new Error(`${command} ${args.join(' ')} exited (${String(code)}) before it was ready`)),
    );
    lines.on('line', (line) => {
      if (!line.startsWith('{"ready"')) return options.log(line);
      clearTimeout(timer);
      resolve((JSON.parse(line) as { ready: T }).ready);
    });
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(killer);
  };
  return { child, pid: child.pid ?? 0, ready, stop };
};

/**
 * For a process `startReadyChild` started: `stop` runs once, then the process exits, on SIGTERM or
 * when its parent goes. A bench told to end by a signal of its own (`kill`, not a Ctrl-C to the
 * whole group) would otherwise leave its local runtime serving, with its workers and model servers.
 */
export const stopWhenParentGoes = (stop: () => Promise<void>): void => {
  let stopping: Promise<void> | null = null;
  const stopAndExit = () => void (stopping ??= stop().finally(() => process.exit(0)));
  // The parent gone, its end of our output is too: a line logged while stopping must not end the
  // process half-way through with EPIPE.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
  process.once('disconnect', stopAndExit);
  process.once('SIGTERM', stopAndExit);
};

const statusField = (pid: number, field: string): number | null => {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((entry) => entry.startsWith(`${field}:`));
    return line ? Number(line.split(/\s+/)[1]) / 1024 : null;
  } catch {
    return null;
  }
};

/**
 * Peak resident memory of a process, in MiB, since the last `resetPeakRss` (Linux: VmHWM, which
 * writing 5 to clear_refs resets). The peak is the kernel's own, so no short spike is missed.
 */
export const peakRssMiB = (pid: number): number | null => statusField(pid, 'VmHWM');

export const resetPeakRss = (pid: number): void => {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    // Not Linux, or not our process: the peak is then the process's lifetime peak.
  }
};

/** The direct children of a process (Linux): each thread's, as a child is listed under the thread that started it. */
export const childPids = (pid: number): number[] => {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
};

export const commandLine = (pid: number): string => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
  } catch {
    return '';
  }
};

/** Whether a process is running: a zombie (ended, not yet reaped by its parent) is not. */
export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return commandLine(pid) !== '';
  } catch {
    return false;
  }
};
