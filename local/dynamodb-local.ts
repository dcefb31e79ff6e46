import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmulatorProcess } from './emulator-process.ts';
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
  const endpoint = `http://127.0.0.1:${port}`;
  const emulator = await startEmulatorProcess({
    name: 'DynamoDB Local',
    command: 'java',
    args: [
      `-Djava.library.path=${LIB}`,
      '-Xmx512m',
      // The quick compiler only: on a machine of two cores the optimizing one took a third of a core
      // for minutes after each start, which the service beside it needed (bench/results/2026-11-28-worker-pipeline.md).
      '-XX:TieredStopAtLevel=1',
      '-cp',
      `${LIB}/*`,
      'com.amazonaws.services.dynamodbv2.local.main.ServerRunner',
      ...storage,
      '-sharedDb',
      // It would otherwise send usage data to AWS from the user's machine.
      '-disableTelemetry',
      '-port',
      String(port),
    ],
    // It writes a metadata file into its working directory: keep that out of the repository.
    cwd: options.dataDir ?? tmpdir(),
    // It answers 400 to a bare GET once it serves requests.
    ready: async () => (await fetch(endpoint, { method: 'GET' })).status > 0,
    startSeconds: 60,
  });
  return { endpoint, process: emulator.process, stop: emulator.stop };
};
