import { setTimeout as sleep } from 'node:timers/promises';
import type { PredictionView } from '../shared/api/prediction-view.ts';
import { parseTimestamp } from '../shared/domain/clock.ts';
import { isTerminalStatus } from '../shared/domain/prediction.ts';
import { apiCall, type ApiTarget } from '../test/support/http-client.ts';
import { meterSnapshot } from './local-endpoints.ts';
import { runClosedLoop, timed } from './load.ts';
import { summarize, type Summary } from './stats.ts';

/** How often a benchmark client polls a prediction it waits for. */
const POLL_MS = 20;
const ECHO_INPUT = { text: 'bench', sleep: 0 };

interface Iteration {
  /** null when the prediction succeeded; else how it ended. */
  readonly failure: string | null;
  readonly createMs: number;
  readonly getMs: readonly number[];
  /** Create sent to terminal status seen, by this client (poll every POLL_MS). */
  readonly terminalMs: number;
  /** completed_at − created_at, as the service recorded them. */
  readonly serverTerminalMs: number | null;
}

export interface LevelResult {
  readonly concurrency: number;
  readonly seconds: number;
  /** Predictions that ended `succeeded`, and per second. */
  readonly completed: number;
  readonly completedPerSecond: number;
  /** Predictions that ended otherwise, by how they ended: under load they tell where the service breaks. */
  readonly failed: Record<string, number>;
  readonly requestsPerSecond: number;
  readonly createMs: Summary;
  readonly getMs: Summary;
  readonly terminalMs: Summary;
  readonly serverTerminalMs: Summary;
  /** Calls DynamoDB Local served per second during the level: the local runtime's bottleneck when flat across levels. */
  readonly dynamoCallsPerSecond: number;
}

export interface BareLevelResult {
  readonly concurrency: number;
  readonly requestsPerSecond: number;
  readonly postMs: Summary;
  readonly getMs: Summary;
}

export interface ControlPlaneResult {
  readonly secondsPerLevel: number;
  readonly pollMs: number;
  readonly levels: readonly { prognoz: LevelResult; bare: BareLevelResult; ratios: Ratios }[];
}

export interface Ratios {
  /** prognoz ÷ bare: how far the whole service is from this machine's HTTP ceiling. */
  readonly requestsPerSecond: number;
  readonly createP50: number;
  readonly getP50: number;
}

/** One prediction through its whole life: create, then poll until it ends. */
export const predictionLifecycle = async (target: ApiTarget): Promise<Iteration> => {
  const started = performance.now();
  const created = await apiCall<PredictionView>(target, 'prognoz/echo', { body: ECHO_INPUT });
  if (created.status !== 201) throw new Error(`create answered ${created.status}: ${JSON.stringify(created.json)}`);
  const getMs: number[] = [];
  let view = created.json;
  while (!isTerminalStatus(view.status)) {
    await sleep(POLL_MS);
    const got = await apiCall<PredictionView>(target, `predictions/${view.id}`);
    if (got.status !== 200) throw new Error(`get answered ${got.status}: ${JSON.stringify(got.json)}`);
    getMs.push(got.ms);
    view = got.json;
  }
  return {
    failure: view.status === 'succeeded' ? null : `${view.status}: ${String(view.error)}`,
    createMs: created.ms,
    getMs,
    terminalMs: performance.now() - started,
    serverTerminalMs: view.completed_at ? parseTimestamp(view.completed_at) - parseTimestamp(view.created_at) : null,
  };
};

/** The same HTTP shape against the bare server: a POST, then a GET, each answered at once. */
const bareRoundTrip = async (url: string): Promise<{ postMs: number; getMs: number }> => {
  const target = { apiUrl: url, apiToken: 'bare' };
  const post = await apiCall(target, 'prognoz/echo', { body: ECHO_INPUT });
  const get = await apiCall(target, 'predictions/0b9e8d6c-6f1a-4b8e-9a57-3f1d2c4b5a69');
  return { postMs: post.ms, getMs: get.ms };
};

/** Loads every handler and warms the JIT before anything is measured. */
export const warmUp = async (target: ApiTarget, seconds: number): Promise<void> => {
  await runClosedLoop(4, seconds * 1000, () => predictionLifecycle(target));
};

/** Section 1: the service and the bare server under the same closed-loop load, level by level. */
export const measureControlPlane = async (
  target: ApiTarget,
  origin: string,
  bareUrl: string,
  levels: readonly number[],
  secondsPerLevel: number,
  log: (line: string) => void,
): Promise<ControlPlaneResult> => {
  const results: ControlPlaneResult['levels'][number][] = [];
  for (const concurrency of levels) {
    const before = await meterSnapshot(origin);
    const service = await runClosedLoop(concurrency, secondsPerLevel * 1000, () => predictionLifecycle(target));
    const after = await meterSnapshot(origin);
    const dynamoCalls = (snapshot: typeof after) =>
      Object.values(snapshot.dynamodb).reduce((sum, usage) => sum + usage.calls, 0);
    const requests = service.results.reduce((sum, it) => sum + 1 + it.getMs.length, 0);
    const succeeded = service.results.filter((it) => it.failure === null).length;
    const failed: Record<string, number> = {};
    for (const { failure } of service.results) if (failure !== null) failed[failure] = (failed[failure] ?? 0) + 1;
    const prognoz: LevelResult = {
      concurrency,
      seconds: service.seconds,
      completed: succeeded,
      completedPerSecond: succeeded / service.seconds,
      failed,
      requestsPerSecond: requests / service.seconds,
      createMs: summarize(service.results.map((it) => it.createMs)),
      getMs: summarize(service.results.flatMap((it) => it.getMs)),
      terminalMs: summarize(service.results.map((it) => it.terminalMs)),
      serverTerminalMs: summarize(
        service.results.flatMap((it) => (it.serverTerminalMs === null ? [] : [it.serverTerminalMs])),
      ),
      dynamoCallsPerSecond: (dynamoCalls(after) - dynamoCalls(before)) / service.seconds,
    };
    const bareLoad = await runClosedLoop(concurrency, secondsPerLevel * 1000, () => bareRoundTrip(bareUrl));
    const bare: BareLevelResult = {
      concurrency,
      requestsPerSecond: (bareLoad.results.length * 2) / bareLoad.seconds,
      postMs: summarize(bareLoad.results.map((it) => it.postMs)),
      getMs: summarize(bareLoad.results.map((it) => it.getMs)),
    };
    const ratios: Ratios = {
      requestsPerSecond: prognoz.requestsPerSecond / bare.requestsPerSecond,
      createP50: prognoz.createMs.p50 / bare.postMs.p50,
      getP50: prognoz.getMs.p50 / bare.getMs.p50,
    };
    const failedCount = Object.values(failed).reduce((a, b) => a + b, 0);
    log(
      `  ${String(concurrency).padStart(2)} clients: ${prognoz.completedPerSecond.toFixed(1)} predictions/s${failedCount > 0 ? ` (${failedCount} failed)` : ''}, ${prognoz.requestsPerSecond.toFixed(0)} req/s ` +
        `(bare ${bare.requestsPerSecond.toFixed(0)} req/s), create p50 ${prognoz.createMs.p50.toFixed(1)} ms, get p50 ${prognoz.getMs.p50.toFixed(1)} ms`,
    );
    results.push({ prognoz, bare, ratios });
  }
  return { secondsPerLevel, pollMs: POLL_MS, levels: results };
};

export interface SyncResult {
  readonly requests: number;
  readonly latencyMs: Summary;
  /** The model's own time (the prediction's `runtime`). */
  readonly modelMs: Summary;
  /** Latency minus the model's own time, request by request. */
  readonly overheadMs: Summary;
}

/** Section 2: `Prefer: SYNC` one after another; what the service adds to the model's time. */
export const measureSyncOverhead = async (target: ApiTarget, requests: number): Promise<SyncResult> => {
  const latency: number[] = [];
  const model: number[] = [];
  for (let i = 0; i < requests; i++) {
    const { value: created, ms } = await timed(() =>
      apiCall<PredictionView>(target, 'prognoz/echo', { body: ECHO_INPUT, headers: { prefer: 'SYNC' } }),
    );
    if (created.json.status !== 'succeeded' || created.json.runtime === null) {
      throw new Error(`a synchronous prediction came back ${created.json.status} (${created.status})`);
    }
    latency.push(ms);
    model.push(created.json.runtime * 1000);
  }
  return {
    requests,
    latencyMs: summarize(latency),
    modelMs: summarize(model),
    overheadMs: summarize(latency.map((ms, i) => ms - (model[i] ?? 0))),
  };
};
