import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import * as z from 'zod';

/**
 * A local runtime's data folder (its DynamoDB files, its fleets' bounds, its lock and
 * runtime.json): `--data-dir`, else PROGNOZ_DATA_DIR, else the repository's `local/.data/dynamodb`.
 * `npm start` and `npx prognoz` find it the same way.
 */
export const DATA_DIR_ENV = 'PROGNOZ_DATA_DIR';
const DEFAULT_DATA_DIR = path.resolve(import.meta.dirname, '..', 'local', '.data', 'dynamodb');

export const localDataDir = (option?: string, env: NodeJS.ProcessEnv = process.env): string =>
  path.resolve(option ?? env[DATA_DIR_ENV] ?? DEFAULT_DATA_DIR);

/** A process as the kernel knows it: its pid, and when it started (a pid reused later is another process). */
export interface ProcessIdentity {
  readonly pid: number;
  /** Its start time in clock ticks after boot (/proc/<pid>/stat, field 22); null where there is no /proc. */
  readonly startTicks: string | null;
}

/** The fields of /proc/<pid>/stat from the third on (its state first); throws where there is none. */
export const statFieldsOf = (pid: number | string): string[] => {
  const stat = readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
  // The command name (field 2) is in parentheses and may hold spaces: count from after it.
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
};

const startTicksOf = (pid: number): string | null | undefined => {
  try {
    return statFieldsOf(pid)[19] ?? null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && existsSync('/proc/self/stat')) return undefined;
    return null;
  }
};

/** A running process's identity. */
export const identityOf = (pid: number): ProcessIdentity => ({ pid, startTicks: startTicksOf(pid) ?? null });

/** This process's identity. */
export const ownIdentity = (): ProcessIdentity => identityOf(process.pid);

/** Whether the process is still the one that was identified: it runs, and its pid was not reused since. */
export const isRunning = (identity: ProcessIdentity): boolean => {
  const ticks = startTicksOf(identity.pid);
  if (ticks === undefined) return false;
  if (ticks !== null && identity.startTicks !== null) return ticks === identity.startTicks;
  try {
    process.kill(identity.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

const identity = z.strictObject({ pid: z.number().int().positive(), startTicks: z.string().nullable() });

/** What a running `npm start` writes to runtime.json in its data folder: how to reach it. */
export const localRuntimeFile = z.strictObject({
  runtime: identity,
  port: z.number().int(),
  apiUrl: z.string(),
  dataDir: z.string(),
  dynamoEndpoint: z.string(),
  tableName: z.string(),
  region: z.string(),
  cognitoEndpoint: z.string(),
  ownerPoolId: z.string(),
  fleetsEndpoint: z.string(),
  fleetClusterPrefix: z.string(),
  s3Endpoint: z.string(),
  outputBucket: z.string(),
});
export type LocalRuntimeFile = z.infer<typeof localRuntimeFile>;

export const runtimeFileIn = (dataDir: string): string => path.join(dataDir, 'runtime.json');

/**
 * The runtime that serves this data folder now, from its runtime.json: null when there is none,
 * or the file was left by a runtime that is gone (it is never trusted without its process).
 */
export const runningLocalRuntime = (dataDir: string): LocalRuntimeFile | null => {
  const file = runtimeFileIn(dataDir);
  if (!existsSync(file)) return null;
  let content: unknown;
  try {
    content = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
  const parsed = localRuntimeFile.safeParse(content);
  return parsed.success && isRunning(parsed.data.runtime) ? parsed.data : null;
};
