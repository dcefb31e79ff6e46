/**
 * `node --import tsx bench/cpu-alone.ts [predictions]`: the CPU time each process of the local
 * runtime spends per prediction, on its own runtime: `Prefer: SYNC` one after another, then 32
 * clients creating and polling (as the control-plane section). CPU time moves less than wall time
 * on a shared machine, so it shows what a change saves where throughput figures drown in noise.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../local/paths.ts';
import { createAccount, UNLIMITED_ACCOUNT } from './accounts.ts';
import { measureSyncOverhead, predictionLifecycle, warmUp } from './control-plane.ts';
import { runClosedLoop } from './load.ts';
import { n, table } from './markdown.ts';
import { childPids, commandLine, startReadyChild } from './processes.ts';

const predictions = Number(process.argv[2] ?? 200);
const TICK_MS = 10;

/** utime + stime of a process, in ms (Linux, 100 ticks a second). */
const cpuMs = (pid: number | 'self'): number => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0;
  }
};

const tree = (pid: number): number[] => [pid, ...childPids(pid).flatMap(tree)];

const nameOf = (pid: number, root: number): string => {
  const line = commandLine(pid);
  if (pid === root) return 'runtime (API front, handlers)';
  if (line.includes('DynamoDBLocal') || line.includes('dynamodbv2')) return 'DynamoDB Local';
  if (line.includes('emulator-host')) return 'emulators (SQS, Step Functions, S3…)';
  if (line.includes('python') || line.includes('coglet')) return 'model servers (every model)';
  if (line.includes('worker/main')) return 'workers (every model)';
  return line.slice(0, 60);
};

const runtime = await startReadyChild<{ apiUrl: string; origin: string; tableName: string; dynamoEndpoint: string }>(
  process.execPath,
  ['--import', 'tsx', path.join(REPO_ROOT, 'bench', 'runtime-process.ts')],
  { timeoutMs: 180_000, log: () => undefined },
);
const snapshot = (): Map<string, number> => {
  const byName = new Map<string, number>();
  for (const pid of tree(runtime.pid)) {
    const name = nameOf(pid, runtime.pid);
    byName.set(name, (byName.get(name) ?? 0) + cpuMs(pid));
  }
  byName.set('bench clients', cpuMs('self'));
  return byName;
};

try {
  const target = { apiUrl: runtime.ready.apiUrl, apiToken: await createAccount(runtime.ready, UNLIMITED_ACCOUNT) };
  await warmUp(target, 5);
  const phases: { name: string; count: number; used: Map<string, number> }[] = [];
  const idle = async () => {
    await new Promise((resolve) => setTimeout(resolve, 5000));
    return 5;
  };
  const measure = async (name: string, run: () => Promise<number>) => {
    const before = snapshot();
    const count = await run();
    const after = snapshot();
    phases.push({ name, count, used: new Map([...after].map(([k, v]) => [k, v - (before.get(k) ?? 0)])) });
  };
  await measure('idle, per second', idle);
  await measure('SYNC, one at a time', async () => (await measureSyncOverhead(target, predictions)).requests);
  await measure('32 clients, polling', async () => {
    const load = await runClosedLoop(32, 10_000, () => predictionLifecycle(target));
    return load.results.filter((it) => it.failure === null).length;
  });
  const names = [...new Set(phases.flatMap((p) => [...p.used.keys()]))];
  console.log(
    table(
      ['CPU ms per prediction', ...phases.map((p) => (p.name.startsWith('idle') ? p.name : `${p.name} (${p.count})`))],
      [
        ...names.map((name) => [name, ...phases.map((p) => n((p.used.get(name) ?? 0) / p.count))]),
        ['all', ...phases.map((p) => n([...p.used.values()].reduce((a, b) => a + b, 0) / p.count))],
      ],
    ),
  );
} finally {
  await runtime.stop();
}
