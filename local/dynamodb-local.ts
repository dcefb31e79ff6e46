import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './free-port.ts';
import { REPO_ROOT } from './paths.ts';

const LIB = path.join(REPO_ROOT, 'local', 'dynamodb', 'lib');

export interface DynamoDbLocal {
  readonly endpoint: string;
  readonly process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * AWS DynamoDB Local (from Maven Central, fetched by scripts/setup-local.sh): every operation
 * the code uses, transactions included. In memory, or persisted under `dataDir`.
 */
export const startDynamoDbLocal = async (options: { dataDir?: string }): Promise<DynamoDbLocal> => {
  if (!existsSync(path.join(LIB, 'DynamoDBLocal.jar'))) {
    throw new Error('DynamoDB Local is not installed: run `npm run setup:local` (npm install does it too)');
  }
  const port = await freePort();
  const storage = options.dataDir ? ['-dbPath', options.dataDir] : ['-inMemory'];
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const child = spawn(
    'java',
    [
      `-Djava.library.path=${LIB}`,
      '-Xmx512m',
      '-cp',
      `${LIB}/*`,
      'com.amazonaws.services.dynamodbv2.local.main.ServerRunner',
      ...storage,
      '-sharedDb',
      '-port',
      String(port),
    ],
    // It writes a metadata file into its working directory: keep that out of the repository.
    { stdio: ['ignore', 'pipe', 'pipe'], cwd: options.dataDir ?? tmpdir() },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const endpoint = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`DynamoDB Local exited (${child.exitCode}):\n${output}`);
    try {
      const response = await fetch(endpoint, { method: 'GET' });
      // It answers 400 to a bare GET once it serves requests.
      if (response.status > 0) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`DynamoDB Local did not start within 60 s:\n${output}`);
    await sleep(100);
  }
  return {
    endpoint,
    process: child,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(5000).then(() => child.kill('SIGKILL'))]);
    },
  };
};
