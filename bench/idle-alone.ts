/**
 * `npm run bench:idle [-- repeats]`: the first-prediction-after-idle section of the bench alone
 * (bench/idle-start.ts), against a local runtime of its own, as `npm run bench` starts it.
 */
import path from 'node:path';
import { REPO_ROOT } from '../local/paths.ts';
import { createAccount, UNLIMITED_ACCOUNT } from './accounts.ts';
import { measureIdleStarts } from './idle-start.ts';
import { n, p50p99, table } from './markdown.ts';
import { startReadyChild } from './processes.ts';

const repeats = Number(process.argv[2] ?? 5);
const runtime = await startReadyChild<{
  apiUrl: string;
  tableName: string;
  dynamoEndpoint: string;
  fleetsEndpoint: string;
  clusterPrefix: string;
  origin: string;
}>(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'bench', 'runtime-process.ts')], {
  timeoutMs: 180_000,
  log: () => undefined,
});
try {
  const apiToken = await createAccount(runtime.ready, UNLIMITED_ACCOUNT);
  const rows = await measureIdleStarts({ apiUrl: runtime.ready.apiUrl, apiToken }, runtime.ready, repeats, (line) =>
    console.log(line),
  );
  console.log(
    table(
      ['model', 'min 0 (cold start), ms', 'min 1 (warm), ms', 'min 0 ÷ min 1 (p50)'],
      rows.map((row) => [row.model, p50p99(row.coldMs), p50p99(row.warmMs), `${n(row.coldMs.p50 / row.warmMs.p50)}×`]),
    ),
  );
} finally {
  await runtime.stop();
}
