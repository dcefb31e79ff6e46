/**
 * `npm run bench [-- --quick]`: how fast and how cheap prognoz is, measured side by side with
 * this machine's ceilings in one run. Writes bench/results/<date>.json and <date>.md.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { localTls, trustLocally } from '../local/local-tls.ts';
import { REPO_ROOT } from '../local/paths.ts';
import { createAccount, UNLIMITED_ACCOUNT } from './accounts.ts';
import { AWS_PRICES } from './aws-prices.ts';
import { bundleFloorWays, bundleFunctions, bundleSdkFloor, lambdaFunctions } from './bundles.ts';
import { measureColdStarts } from './cold-start.ts';
import { measureControlPlane, measureSyncOverhead, warmUp } from './control-plane.ts';
import { measureCosts } from './cost.ts';
import { localProcesses } from './local-endpoints.ts';
import { runtimeProcesses, withPeakRss } from './memory.ts';
import { startReadyChild } from './processes.ts';
import { renderReport, type BenchReport } from './report.ts';
import { measureOutputFiles } from './output-files.ts';
import { measureIdleStarts } from './idle-start.ts';
import { makeClips, measureLongTranscription, measureTranscription } from './transcription.ts';
import { makeThroughputClips, measureThroughput } from './throughput.ts';
import { repositoryPython } from '../local/model-env.ts';

const MODES = {
  quick: {
    warmUpSeconds: 3,
    secondsPerLevel: 4,
    syncRequests: 30,
    costPredictions: 3,
    transcriptionRepeats: 2,
    longMinutes: 10,
    coldStartRuns: 10,
    fileRepeats: 3,
    idleRepeats: 2,
    throughputRepeats: 1,
    throughputClips: 8,
  },
  full: {
    warmUpSeconds: 10,
    secondsPerLevel: 15,
    syncRequests: 200,
    costPredictions: 10,
    transcriptionRepeats: 5,
    longMinutes: 60,
    coldStartRuns: 10,
    fileRepeats: 10,
    idleRepeats: 5,
    throughputRepeats: 2,
    throughputClips: 32,
  },
} as const;
const CONCURRENCY = [1, 8, 32] as const;

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    out: { type: 'string', default: path.join(REPO_ROOT, 'bench', 'results') },
  },
});
const mode = args.quick ? 'quick' : 'full';
const settings = MODES[mode];
const benchStarted = performance.now();
const log = (line: string) =>
  console.log(`[${((performance.now() - benchStarted) / 1000).toFixed(0).padStart(4)} s] ${line}`);
const python = repositoryPython();
if (!existsSync(python)) throw new Error(`no Python environment at ${python}: run npm install first`);
const tsx = ['--import', 'tsx'];
const childLog = (prefix: string) => (line: string) => {
  if (process.env.PROGNOZ_BENCH_VERBOSE === 'true') console.log(`${prefix} ${line}`);
};

const machine = {
  cores: os.availableParallelism(),
  cpu: os.cpus()[0]?.model ?? 'unknown',
  memoryGiB: Math.round(os.totalmem() / 2 ** 30),
  os: `${os.type()} ${os.release()} ${os.arch()}`,
  node: process.version,
  python: execFileSync(python, ['--version']).toString().trim(),
  commit: execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_ROOT }).toString().trim(),
};
log(`prognoz bench (${mode}) on ${machine.cores} cores, ${machine.cpu}, Node ${machine.node}`);

const scratch = mkdtempSync(path.join(os.tmpdir(), 'prognoz-bench-'));
log('starting the local runtime and the bare HTTP server…');
const runtime = await startReadyChild<{
  apiUrl: string;
  apiToken: string;
  tableName: string;
  dynamoEndpoint: string;
  fleetsEndpoint: string;
  clusterPrefix: string;
  origin: string;
}>(process.execPath, [...tsx, path.join(REPO_ROOT, 'bench', 'runtime-process.ts')], {
  timeoutMs: 180_000,
  log: childLog('[runtime]'),
});
const bare = await startReadyChild<{ url: string }>(
  process.execPath,
  [...tsx, path.join(REPO_ROOT, 'bench', 'bare-server.ts')],
  {
    timeoutMs: 30_000,
    log: childLog('[bare]'),
  },
);

// Output file URLs are https, answered with the certificate the runtime made (or found) as it started.
trustLocally(await localTls());

let report: BenchReport;
try {
  const apiToken = await createAccount(runtime.ready, UNLIMITED_ACCOUNT);
  const target = { apiUrl: runtime.ready.apiUrl, apiToken };
  // The runtime's own processes in every phase; of the workers and model servers, the phase's model's.
  // Looked up as each phase starts: a model server's predictor process exists only once its setup has begun.
  const pick = async (model: string) =>
    (await runtimeProcesses(runtime.ready.origin, runtime.pid)).filter(
      (p) => p.model === undefined || p.model === model,
    );

  log(`warming up (${settings.warmUpSeconds} s)…`);
  await warmUp(target, settings.warmUpSeconds);
  log(
    `control plane: ${CONCURRENCY.join(', ')} clients, ${settings.secondsPerLevel} s each, against prognoz and the bare server`,
  );
  const control = await withPeakRss(await pick('prognoz/echo'), async () => {
    const plane = await measureControlPlane(
      target,
      runtime.ready.origin,
      `${bare.ready.url}api/v1/`,
      CONCURRENCY,
      settings.secondsPerLevel,
      log,
    );
    log(`synchronous overhead: ${settings.syncRequests} Prefer: SYNC predictions…`);
    const sync = await measureSyncOverhead(target, settings.syncRequests);
    return { plane, sync };
  });

  log(`output files: ${settings.fileRepeats} runs each of a 1 KB and a 10 MB file, from the model's return to its URL`);
  const outputFiles = await measureOutputFiles(target, settings.fileRepeats);

  log(`cost model: ${settings.costPredictions} predictions per scenario, calls counted by the local runtime's meter`);
  const memoryByEntry = new Map(lambdaFunctions().map((fn) => [fn.entry, fn.memoryMiB]));
  const echoUrl = (await localProcesses(runtime.ready.origin)).find((p) => p.name === 'model:prognoz/echo')?.url;
  if (!echoUrl) throw new Error('the echo model server is not running');
  const costs = await measureCosts(
    { target, origin: runtime.ready.origin },
    echoUrl,
    settings.costPredictions,
    (entry) => memoryByEntry.get(entry) ?? 512,
    AWS_PRICES,
  );

  log(
    'transcription: the service, the same transcription called directly, and faster-whisper as it comes, interleaved…',
  );
  const { clips, long } = await makeClips(python, scratch, settings.longMinutes);
  const transcription = await withPeakRss(await pick('openai/whisper-base'), () =>
    measureTranscription(target, python, clips, settings.transcriptionRepeats, log),
  );
  log(`long audio: ${settings.longMinutes} min through the service…`);
  const longRun = await withPeakRss(await pick('openai/whisper-base'), () =>
    measureLongTranscription(target, long, log),
  );

  log(
    `throughput: ${settings.throughputClips} transcriptions of 30 s at once, one at a time, and faster-whisper's batched pipeline, then as many of English alone, interleaved…`,
  );
  const throughputClips = await makeThroughputClips(
    python,
    path.join(scratch, 'throughput'),
    settings.throughputClips,
    30,
  );
  const throughput = await measureThroughput(target, python, throughputClips, settings.throughputRepeats, log);

  log(`first prediction after idle: ${settings.idleRepeats} runs each of min 0 and min 1, interleaved…`);
  const idleStart = await measureIdleStarts(target, runtime.ready, settings.idleRepeats, log);

  await runtime.stop();
  await bare.stop();
  log(`Lambda cold start proxy: bundling, then ${settings.coldStartRuns} fresh loads per function…`);
  const bundles = await bundleFunctions(path.join(REPO_ROOT, 'bench', '.bundles'));
  const floor = await bundleSdkFloor(path.join(REPO_ROOT, 'bench', '.bundles'));
  const floorWays = await bundleFloorWays(path.join(REPO_ROOT, 'bench', '.bundles'));
  const coldStarts = await measureColdStarts(bundles, floor, settings.coldStartRuns, floorWays);

  report = {
    date: new Date().toISOString(),
    mode,
    durationSeconds: (performance.now() - benchStarted) / 1000,
    machine,
    settings,
    controlPlane: control.value.plane,
    sync: control.value.sync,
    transcription: transcription.value,
    longTranscription: { ...longRun.value, peaks: longRun.peaks },
    coldStarts,
    outputFiles,
    idleStart,
    throughput,
    costs: { prices: AWS_PRICES, scenarios: costs },
    memory: {
      controlPlane: control.peaks,
      transcription: { ...transcription.peaks, 'direct faster-whisper (python)': transcription.value.directPeakRssMiB },
    },
  };
} finally {
  await runtime.stop();
  await bare.stop();
  rmSync(scratch, { recursive: true, force: true });
  rmSync(path.join(REPO_ROOT, 'bench', '.bundles'), { recursive: true, force: true });
}

mkdirSync(args.out, { recursive: true });
const day = report.date.slice(0, 10);
const jsonFile = path.join(args.out, `${day}.json`);
const markdownFile = path.join(args.out, `${day}.md`);
writeFileSync(jsonFile, `${JSON.stringify(report, null, 2)}\n`);
writeFileSync(markdownFile, renderReport(report));
log(
  `done in ${report.durationSeconds.toFixed(0)} s: ${path.relative(process.cwd(), markdownFile)}, ${path.relative(process.cwd(), jsonFile)}`,
);
