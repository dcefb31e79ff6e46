import { fork } from 'node:child_process';
import path from 'node:path';
import type { Emulators } from './emulators.ts';
import type { MeterSnapshot } from './meter.ts';
import { REPO_ROOT } from './paths.ts';
import { groupEnded, signalGroup } from './process-group.ts';

export type EmulatorHostRequest = { readonly type: 'meter'; readonly id: number } | { readonly type: 'stop' };

export type EmulatorHostMessage =
  | ({ readonly type: 'ready' } & Pick<Emulators, 'dynamoEndpoint' | 'fauxqsAddress' | 'awsEnv'>)
  | { readonly type: 'failed'; readonly message: string }
  | { readonly type: 'meter'; readonly id: number; readonly snapshot: MeterSnapshot };

export interface EmulatorsProcessOptions {
  readonly dataDir?: string;
  /** Told, with why, if the process ends without being stopped: the service's AWS calls fail from then on. */
  readonly onEnded?: (why: string) => void;
}

export interface EmulatorsProcess extends Emulators {
  /** The emulators' process (DynamoDB Local and moto are its children). */
  readonly pid: number;
  /** The calls the service made of DynamoDB, SQS and S3 so far, as that process's meter counted them. */
  meter(): Promise<MeterSnapshot>;
  /** False once the process has ended. */
  running(): boolean;
}

const STOP_GRACE_MS = 15_000;

/**
 * Starts the emulators in a process of their own (local/emulator-host.ts), on the same Node
 * and loader as this one, and talks to it over IPC: ready, meter, stop.
 */
export const startEmulatorsProcess = async (options: EmulatorsProcessOptions): Promise<EmulatorsProcess> => {
  const hostOptions = options.dataDir === undefined ? {} : { dataDir: options.dataDir };
  const child = fork(path.join(REPO_ROOT, 'local', 'emulator-host.ts'), [JSON.stringify(hostOptions)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    // A process group of its own, which DynamoDB Local and moto join: Node has no parent-death
    // signal, so what of it outlives the process unasked is ended by its group (signalGroup).
    // Out of the terminal's group too, so a Ctrl-C reaches the runtime, which stops it in order.
    detached: true,
  });
  let stopping = false;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      if (!stopping) signalGroup(child, 'SIGTERM');
      resolve();
    }),
  );
  const ready = await new Promise<Extract<EmulatorHostMessage, { type: 'ready' }>>((resolve, reject) => {
    child.once('exit', (code, signal) =>
      reject(new Error(`the emulators' process ended (${String(code ?? signal)}) before it was ready`)),
    );
    child.on('message', (message: EmulatorHostMessage) => {
      if (message.type === 'ready') resolve(message);
      if (message.type === 'failed') reject(new Error(message.message));
    });
  });
  let nextId = 0;
  let ended: string | null = null;
  const pending = new Map<number, { resolve: (snapshot: MeterSnapshot) => void; reject: (error: Error) => void }>();
  child.on('message', (message: EmulatorHostMessage) => {
    if (message.type !== 'meter') return;
    pending.get(message.id)?.resolve(message.snapshot);
    pending.delete(message.id);
  });
  child.once('exit', (code, signal) => {
    const why = `the emulators' process ended (${String(code ?? signal)})`;
    ended = why;
    for (const { reject } of pending.values()) reject(new Error(why));
    pending.clear();
    if (!stopping) options.onEnded?.(why);
  });
  return {
    pid: child.pid ?? 0,
    dynamoEndpoint: ready.dynamoEndpoint,
    fauxqsAddress: ready.fauxqsAddress,
    awsEnv: ready.awsEnv,
    meter: () =>
      new Promise((resolve, reject) => {
        if (ended !== null) return reject(new Error(ended));
        const id = nextId++;
        pending.set(id, { resolve, reject });
        child.send({ type: 'meter', id } satisfies EmulatorHostRequest, (error) => {
          if (error) {
            pending.delete(id);
            reject(error);
          }
        });
      }),
    running: () => ended === null,
    async stop() {
      stopping = true;
      if (ended !== null) return;
      child.send({ type: 'stop' } satisfies EmulatorHostRequest);
      const killer = setTimeout(() => signalGroup(child, 'SIGKILL'), STOP_GRACE_MS);
      await exited;
      clearTimeout(killer);
      // What the emulators left in their group (none, when they stopped in order) is ended too.
      signalGroup(child, 'SIGTERM');
      await groupEnded(child, STOP_GRACE_MS);
    },
  };
};
