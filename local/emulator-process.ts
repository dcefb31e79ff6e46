import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

export interface EmulatorProcessSpec {
  /** For messages: `DynamoDB Local`. */
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd?: SpawnOptions['cwd'];
  /** True once it serves requests; asked every 100 ms. */
  readonly ready: () => Promise<boolean>;
  readonly startSeconds: number;
}

export interface EmulatorProcess {
  readonly process: ChildProcess;
  readonly stop: () => Promise<void>;
}

/** The last few kilobytes a process printed, for the message when it fails to start. */
const tailOf = (child: ChildProcess): (() => string) => {
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return () => output;
};

/**
 * An emulator the local runtime runs as a child process (DynamoDB Local, moto): started, waited
 * for until it serves, stopped with SIGTERM (SIGKILL after 5 s), and never left behind when this
 * process ends without stopping it.
 */
export const startEmulatorProcess = async (spec: EmulatorProcessSpec): Promise<EmulatorProcess> => {
  const child = spawn(spec.command, [...spec.args], { stdio: ['ignore', 'pipe', 'pipe'], cwd: spec.cwd });
  const output = tailOf(child);
  let failed: Error | null = null;
  child.on('error', (error) => (failed = error));
  const orphanGuard = () => child.kill('SIGTERM');
  process.once('exit', orphanGuard);
  const stop = async () => {
    process.off('exit', orphanGuard);
    if (child.exitCode !== null || child.signalCode !== null || failed) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await Promise.race([exited, sleep(5000).then(() => child.kill('SIGKILL'))]);
  };
  const deadline = Date.now() + spec.startSeconds * 1000;
  // Why it will not serve, or null while it may yet.
  const notStarting = (): string | null => {
    if (failed) return `${spec.name} could not start (${spec.command}): ${failed.message}`;
    if (child.exitCode !== null) return `${spec.name} exited (${child.exitCode}):\n${output()}`;
    if (Date.now() > deadline) return `${spec.name} did not start within ${spec.startSeconds} s:\n${output()}`;
    return null;
  };
  for (;;) {
    if (await spec.ready().catch(() => false)) return { process: child, stop };
    const why = notStarting();
    if (why !== null) {
      await stop();
      throw new Error(why);
    }
    await sleep(100);
  }
};
