/**
 * `npm run chaos [-- --predictions 1000]`: the chaos scenario of the test suite at any size, on a
 * local runtime of its own with the service's real settings (webhook retries 5, 30, 120 s; the
 * sweeper every minute). Prints the report and writes bench/results/chaos-<date>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { REPO_ROOT } from '../local/paths.ts';
import { createAccount } from './accounts.ts';
import { runChaos } from './chaos-scenario.ts';
import { startReadyChild } from './processes.ts';

const { values: args } = parseArgs({
  options: {
    predictions: { type: 'string', default: '100' },
    'max-sleep': { type: 'string', default: '2' },
    'kill-every': { type: 'string', default: '3,7' },
    'webhook-failures': { type: 'string', default: '0.3' },
    out: { type: 'string', default: path.join(REPO_ROOT, 'bench', 'results') },
  },
});
const predictions = Number(args.predictions);
const [killLow = 3, killHigh = 7] = (args['kill-every'] ?? '3,7').split(',').map(Number);
const started = performance.now();
const log = (line: string) =>
  console.log(`[${((performance.now() - started) / 1000).toFixed(0).padStart(5)} s] ${line}`);

log(`starting a local runtime for ${predictions} predictions…`);
const runtime = await startReadyChild<{ apiUrl: string; tableName: string; dynamoEndpoint: string; origin: string }>(
  process.execPath,
  ['--import', 'tsx', path.join(REPO_ROOT, 'bench', 'runtime-process.ts')],
  {
    timeoutMs: 180_000,
    log: (line) => process.env.PROGNOZ_CHAOS_VERBOSE === 'true' && console.log(`[runtime] ${line}`),
  },
);
try {
  const apiToken = await createAccount(runtime.ready, {
    balanceKopecks: 10 ** 9,
    monthlyLimitKopecks: null,
    ratePerSecond: 1_000_000,
  });
  const report = await runChaos({
    target: { apiUrl: runtime.ready.apiUrl, apiToken },
    origin: runtime.ready.origin,
    predictions,
    maxSleepSeconds: Number(args['max-sleep']),
    killEverySeconds: [killLow, killHigh],
    webhookFailureRate: Number(args['webhook-failures']),
    // One echo worker runs them one after another: allow each its sleep, its losses and more.
    timeoutMs: Math.max(300_000, predictions * 10_000),
    log,
  });
  console.log(JSON.stringify(report, null, 2));
  mkdirSync(args.out, { recursive: true });
  const file = path.join(args.out, `chaos-${new Date().toISOString().slice(0, 10)}.json`);
  writeFileSync(file, `${JSON.stringify({ date: new Date().toISOString(), settings: args, report }, null, 2)}\n`);
  log(`done: ${path.relative(process.cwd(), file)}`);
  const broken =
    report.stuck +
    report.failedForWaiting +
    report.wrongOutcome +
    report.webhooksMissed +
    report.webhookIdsUnstable +
    report.webhooksWrongStatus;
  if (broken > 0 || report.chargedBeyondCosts !== 0 || report.held !== 0) process.exitCode = 1;
} finally {
  await runtime.stop();
}
