/**
 * `npm run bench:plane [-- seconds-per-level]`: the control plane and `Prefer: SYNC` sections of the
 * bench alone (bench/control-plane.ts), against a local runtime and a bare server of their own, as
 * `npm run bench` starts them.
 */
import path from 'node:path';
import { REPO_ROOT } from '../local/paths.ts';
import { createAccount, UNLIMITED_ACCOUNT } from './accounts.ts';
import { measureControlPlane, measureSyncOverhead, warmUp } from './control-plane.ts';
import { n, p50p99, table } from './markdown.ts';
import { startReadyChild } from './processes.ts';

const secondsPerLevel = Number(process.argv[2] ?? 10);
const syncRequests = 100;
const tsx = ['--import', 'tsx'];
const log = (line: string) => console.log(line);

const runtime = await startReadyChild<{ apiUrl: string; tableName: string; dynamoEndpoint: string; origin: string }>(
  process.execPath,
  [...tsx, path.join(REPO_ROOT, 'bench', 'runtime-process.ts')],
  { timeoutMs: 180_000, log: () => undefined },
);
const bare = await startReadyChild<{ url: string }>(
  process.execPath,
  [...tsx, path.join(REPO_ROOT, 'bench', 'bare-server.ts')],
  { timeoutMs: 30_000, log: () => undefined },
);
try {
  const apiToken = await createAccount(runtime.ready, UNLIMITED_ACCOUNT);
  const target = { apiUrl: runtime.ready.apiUrl, apiToken };
  await warmUp(target, 5);
  const plane = await measureControlPlane(
    target,
    runtime.ready.origin,
    `${bare.ready.url}api/v1/`,
    [1, 8, 32],
    secondsPerLevel,
    log,
  );
  const sync = await measureSyncOverhead(target, syncRequests);
  console.log(
    table(
      ['clients', 'predictions/s', 'requests/s', 'create', 'get', 'DynamoDB calls/s', 'bare requests/s'],
      plane.levels.map(({ prognoz, bare: b }) => [
        String(prognoz.concurrency),
        n(prognoz.completedPerSecond),
        n(prognoz.requestsPerSecond),
        p50p99(prognoz.createMs),
        p50p99(prognoz.getMs),
        n(prognoz.dynamoCallsPerSecond),
        n(b.requestsPerSecond),
      ]),
    ),
  );
  console.log(`\nPrefer: SYNC, ${syncRequests} one after another: overhead ${p50p99(sync.overheadMs)} ms (p50 / p99)`);
} finally {
  await runtime.stop();
  await bare.stop();
}
