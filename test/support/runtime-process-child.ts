import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';

/** What test/support/runtime-process.ts prints once it is up. */
export interface RuntimeProcessReady {
  readonly apiUrl: string;
  readonly apiToken: string;
  readonly owner: { readonly email: string; readonly password: string };
  readonly ownerClientId: string;
  readonly cognitoEndpoint: string;
}

const SCRIPT = path.resolve(import.meta.dirname, 'runtime-process.ts');

/**
 * Starts a local runtime in a process of its own (test/support/runtime-process.ts), for a test
 * that must not share the suites' runtime. `ready` resolves with what it printed once up, and
 * rejects if it exits first; every other line of its output goes to `onLine`.
 */
export const startRuntimeProcess = (
  options: { readonly env?: NodeJS.ProcessEnv; readonly onLine?: (line: string) => void } = {},
): { readonly child: ChildProcess; readonly ready: Promise<RuntimeProcessReady> } => {
  const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT], {
    cwd: path.resolve(import.meta.dirname, '..', '..'),
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const ready = new Promise<RuntimeProcessReady>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the runtime process exited (${String(code)}) before it was up`)));
    if (!child.stdout) throw new Error('the runtime process has no output to read');
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.startsWith('{"apiUrl"')) resolve(JSON.parse(line) as RuntimeProcessReady);
      else options.onLine?.(line);
    });
  });
  return { child, ready };
};
