import path from 'node:path';
import { REPO_ROOT } from './paths.ts';
import { startLocalRuntime } from './runtime.ts';

/** `npm start`: the whole service on this machine, until Ctrl-C. */
const port = Number(process.env.PORT ?? 8080);
const dataDir = process.env.PROGNOZ_DATA_DIR ?? path.join(REPO_ROOT, 'local', '.data', 'dynamodb');
console.log('prognoz: starting the local runtime…');
const runtime = await startLocalRuntime({
  port,
  dataDir,
  ...(process.env.PROGNOZ_API_TOKEN ? { apiToken: process.env.PROGNOZ_API_TOKEN } : {}),
});

console.log(`
prognoz is running on the local runtime.

  API        ${runtime.apiUrl}
  API token  ${runtime.apiToken}
  data       ${dataDir}

Try it:
  export PROGNOZ_API_TOKEN=${runtime.apiToken}
  curl -s -X POST ${runtime.apiUrl}prognoz/echo \\
    -H "Authorization: Bearer $PROGNOZ_API_TOKEN" -H 'Content-Type: application/json' \\
    -H 'Prefer: wait' -d '{"text": "привет"}'

Ctrl-C stops everything.
`);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    console.log('\nprognoz: stopping…');
    void runtime.stop().then(() => {
      console.log('prognoz: stopped.');
      process.exit(0);
    });
  });
}
