/**
 * A local runtime of its own, as `npm start` runs it (the repository's models), for a test that
 * must not share the suites' runtime (the fuzzer fills queues and accounts). Prints one JSON line
 * `{"apiUrl": …}` (with the API token and the owner's sign-in) when it is up, and stops on SIGTERM. The API token is PROGNOZ_API_TOKEN.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startLocalRuntime } from '../../local/runtime.ts';

const dataDir = mkdtempSync(path.join(tmpdir(), 'prognoz-runtime-'));
const runtime = await startLocalRuntime({
  port: 0,
  dataDir,
  models: [],
  ...(process.env.PROGNOZ_API_TOKEN ? { apiToken: process.env.PROGNOZ_API_TOKEN } : {}),
});
console.log(
  JSON.stringify({
    apiUrl: runtime.apiUrl,
    apiToken: runtime.apiToken,
    owner: runtime.owner,
    ownerClientId: runtime.ownerClientId,
    cognitoEndpoint: runtime.cognitoEndpoint,
  }),
);
process.once('SIGTERM', () => {
  void runtime.stop().then(() => {
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  });
});
