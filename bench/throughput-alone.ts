/**
 * `npm run bench:throughput [-- repeats [clips [seconds]]]`: the throughput section of the bench
 * alone (bench/throughput.ts), against a local runtime of its own. Prints its figures as JSON.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repositoryPython } from '../local/model-env.ts';
import { startLocalRuntime } from '../local/runtime.ts';
import { createAccount, UNLIMITED_ACCOUNT } from './accounts.ts';
import { makeThroughputClips, measureThroughput } from './throughput.ts';

const [repeats = 2, count = 32, seconds = 30] = process.argv.slice(2).map(Number);
const scratch = mkdtempSync(path.join(tmpdir(), 'prognoz-throughput-'));
const runtime = await startLocalRuntime({ port: 0, log: () => undefined });
try {
  const apiToken = await createAccount(
    { tableName: runtime.tableName, dynamoEndpoint: runtime.dynamoEndpoint },
    UNLIMITED_ACCOUNT,
  );
  const python = repositoryPython();
  const clips = await makeThroughputClips(python, scratch, count, seconds);
  const result = await measureThroughput({ apiUrl: runtime.apiUrl, apiToken }, python, clips, repeats, console.log);
  console.log(JSON.stringify(result, null, 2));
} finally {
  await runtime.stop();
  rmSync(scratch, { recursive: true, force: true });
}
