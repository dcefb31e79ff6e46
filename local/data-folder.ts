import { linkSync, mkdirSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import * as z from 'zod';
import { DATA_DIR_ENV, isRunning, ownIdentity, type ProcessIdentity } from '../cli/local-runtime.ts';

/**
 * A data folder belongs to one local runtime at a time: two DynamoDB Local processes on one
 * database, and two runtimes' runtime.json, would lose a user's data or send the admin CLI to the
 * wrong runtime. The holder keeps `runtime.lock` in the folder: its process, the shell that ends its
 * children should it be killed outright (its lifeline), its port and when it started.
 */
export const LOCK_FILE = 'runtime.lock';

const identity = z.strictObject({ pid: z.number().int().positive(), startTicks: z.string().nullable() });
const holderSchema = z.strictObject({
  runtime: identity,
  lifeline: identity.nullable(),
  port: z.number().int(),
  apiUrl: z.string().nullable(),
  startedAt: z.string(),
});
export type FolderHolder = z.infer<typeof holderSchema>;

/** Another runtime holds the folder: who, and how to run one beside it. */
export class DataFolderInUse extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: FolderHolder,
  ) {
    const where = holder.apiUrl ?? (holder.port === 0 ? 'a port it was choosing' : `port ${String(holder.port)}`);
    super(
      `the data folder ${dataDir} is in use by the local runtime with pid ${String(holder.runtime.pid)}, serving ${where}, started ${holder.startedAt}. ` +
        `Stop that one (Ctrl-C where it runs), or run another beside it on a folder and port of its own: ` +
        `${DATA_DIR_ENV}=/path/to/another/folder PORT=8081 npm start`,
    );
    this.name = 'DataFolderInUse';
  }
}

/** The folder while this runtime holds it. */
export interface HeldDataFolder {
  readonly dataDir: string;
  readonly lockFile: string;
  /** Records where the runtime serves, once it does. */
  serving(port: number, apiUrl: string): void;
  /** Gives the folder up (only if this runtime still holds it). */
  release(): void;
}

const readHolder = (file: string): FolderHolder | null => {
  try {
    const parsed = holderSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
};

/** Whose a lock is: a runtime's that runs; one that is gone but whose lifeline still ends its children; nobody's. */
const stateOf = (holder: FolderHolder | null): 'running' | 'stopping' | 'left' =>
  holder === null
    ? 'left'
    : isRunning(holder.runtime)
      ? 'running'
      : holder.lifeline !== null && isRunning(holder.lifeline)
        ? 'stopping'
        : 'left';

/** Longest a start waits for a runtime killed outright to have its children ended (its lifeline's grace is 5 s). */
const STOPPING_WAIT_MS = 20_000;

const sameHolder = (a: FolderHolder | null, b: FolderHolder | null): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Writes the whole file under a name of its own, then links it in: it is there complete, or not at all. */
const createExclusive = (file: string, holder: FolderHolder): boolean => {
  const draft = `${file}.${String(process.pid)}.draft`;
  writeFileSync(draft, JSON.stringify(holder, null, 2));
  try {
    linkSync(draft, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(draft, { force: true });
  }
};

/**
 * Takes the data folder for this runtime, before anything of it starts. A lock left by a runtime
 * that is gone (its process ended, or its pid now names another process) is taken over, with a
 * line saying so, once the children of a runtime killed outright are ended; a lock held by a
 * runtime that runs is a DataFolderInUse.
 */
export const takeDataFolder = async (
  dataDir: string,
  options: { readonly port: number; readonly lifeline: ProcessIdentity | null; readonly log: (line: string) => void },
): Promise<HeldDataFolder> => {
  mkdirSync(dataDir, { recursive: true });
  const lockFile = path.join(dataDir, LOCK_FILE);
  let mine: FolderHolder = {
    runtime: ownIdentity(),
    lifeline: options.lifeline,
    port: options.port,
    apiUrl: null,
    startedAt: new Date().toISOString(),
  };
  const waitUntil = Date.now() + STOPPING_WAIT_MS;
  for (let attempt = 0; ; attempt++) {
    if (createExclusive(lockFile, mine)) break;
    const holder = readHolder(lockFile);
    const state = stateOf(holder);
    if (holder !== null && state === 'running') throw new DataFolderInUse(dataDir, holder);
    if (holder !== null && state === 'stopping' && Date.now() < waitUntil) {
      if (attempt === 0)
        options.log(
          `prognoz: waiting for the runtime that held the data folder (pid ${String(holder.runtime.pid)}, gone) to have its processes ended…`,
        );
      await sleep(250);
      continue;
    }
    if (attempt >= 100) throw new Error(`could not take ${lockFile} over from a runtime that is gone`);
    // Only one of two starts that find the same left lock moves it away: the other finds it gone.
    const aside = `${lockFile}.${String(process.pid)}.left`;
    try {
      renameSync(lockFile, aside);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    const moved = readHolder(aside);
    if (!sameHolder(moved, holder) && stateOf(moved) !== 'left') {
      // A start in between took the folder, and this one moved that start's lock: put it back.
      renameSync(aside, lockFile);
      continue;
    }
    rmSync(aside, { force: true });
    options.log(
      holder === null
        ? `prognoz: ${lockFile} could not be read; taking the data folder over`
        : `prognoz: taking over the data folder from the runtime with pid ${String(holder.runtime.pid)} (started ${holder.startedAt}), which is gone`,
    );
  }
  const write = () => {
    const draft = `${lockFile}.${String(process.pid)}.draft`;
    writeFileSync(draft, JSON.stringify(mine, null, 2));
    renameSync(draft, lockFile);
  };
  const holds = () => sameHolder(readHolder(lockFile), mine);
  return {
    dataDir,
    lockFile,
    serving: (port, apiUrl) => {
      if (!holds()) return;
      mine = { ...mine, port, apiUrl };
      write();
    },
    release: () => {
      if (!holds()) return;
      try {
        unlinkSync(lockFile);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    },
  };
};
