import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { REPO_ROOT } from '../local/paths.ts';
import { dynamoDeploymentLog } from '../shared/adapters/deployment-log.ts';
import { awsFleetScaling } from '../shared/adapters/fleet-scaling.ts';
import type { PredictionView } from '../shared/api/prediction-view.ts';
import type { FleetBounds } from '../shared/domain/deployment-bounds.ts';
import { isTerminalStatus } from '../shared/domain/prediction.ts';
import { clusterOfModel } from '../shared/fleet-config.ts';
import { processEnvironment } from '../shared/config/environment.ts';
import { loadModelCatalog } from '../shared/config/model-catalog.ts';
import { deploymentOf } from '../shared/use-cases/read-deployments.ts';
import { updateDeployment } from '../shared/use-cases/update-deployment.ts';
import { apiCall, type ApiTarget } from '../test/support/http-client.ts';
import { serveFiles } from './file-server.ts';
import { summarize, type Summary } from './stats.ts';

/** Longer than the bench runtime's scale-in time (2 s, bench/runtime-process.ts), which stands in for an idle hour. */
const IDLE_SECONDS = 5;

/** Where the bench's runtime keeps its fleets and its table. */
export interface FleetsTarget {
  readonly fleetsEndpoint: string;
  readonly clusterPrefix: string;
  readonly tableName: string;
  readonly dynamoEndpoint: string;
}

export interface IdleStartCase {
  readonly model: string;
  readonly input: Record<string, unknown>;
}

export interface IdleStartResult {
  readonly model: string;
  /** How long each fleet stood idle before its prediction (past the runtime's scale-in time). */
  readonly idleSeconds: number;
  /** Create to the end of the prediction, ms: min 0, so the model server starts for it. */
  readonly coldMs: Summary;
  /** …min 1: a model server kept warm. */
  readonly warmMs: Summary;
}

const LOCAL = { region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };

/** The use cases of PATCH /deployments, on the bench runtime's fleets and table, as `npx prognoz deployments update` runs them. */
const deploymentsOf = (target: FleetsTarget) => {
  return {
    fleets: awsFleetScaling({ ...LOCAL, endpoint: target.fleetsEndpoint }),
    fleetClusterOf: (model: { id: string }) => clusterOfModel(target.clusterPrefix, model),
    log: dynamoDeploymentLog(
      target.tableName,
      DynamoDBDocumentClient.from(new DynamoDBClient({ ...LOCAL, endpoint: target.dynamoEndpoint })),
    ),
  };
};

/**
 * The first prediction after an idle spell, on a fleet of min 0 (its model server stopped, so the
 * prediction waits for one to start: the cold start a warm minimum saves) and of min 1, interleaved
 * and alternating which goes first. The fleet is left at min 1, max 1, as the runtime starts it.
 */
export const measureIdleStart = async (
  api: ApiTarget,
  fleetsTarget: FleetsTarget,
  { model: id, input }: IdleStartCase,
  repeats: number,
  idleSeconds: number,
  log: (line: string) => void,
): Promise<IdleStartResult> => {
  const deps = deploymentsOf(fleetsTarget);
  const model = loadModelCatalog(processEnvironment()).require(id);
  const setBounds = async (bounds: FleetBounds) => {
    const updated = await updateDeployment(deps, { model, change: bounds, by: 'bench', nowMs: Date.now() });
    if (!updated.ok) throw updated.error;
  };
  const running = async () => (await deploymentOf(deps, model))?.fleet.runningInstances ?? 0;
  const predict = async () => {
    const started = performance.now();
    const created = await apiCall<PredictionView>(api, `models/${id}/predictions`, {
      method: 'POST',
      body: { input },
      headers: { prefer: 'wait=60' },
    });
    let prediction = created.json;
    // A cold start of a large model can outlast the longest wait (60 s): then the prediction is polled.
    while (!isTerminalStatus(prediction.status)) {
      if (performance.now() - started > 300_000) throw new Error(`${id}: not ended after 5 minutes`);
      await sleep(100);
      prediction = (await apiCall<PredictionView>(api, `predictions/${prediction.id}`)).json;
    }
    if (prediction.status !== 'succeeded') throw new Error(`${id}: ${created.status} ${JSON.stringify(prediction)}`);
    return performance.now() - started;
  };
  const until = async (what: string, check: () => Promise<boolean>) => {
    const end = Date.now() + 120_000;
    while (!(await check())) {
      if (Date.now() > end) throw new Error(`${id}: timed out waiting for ${what}`);
      await sleep(200);
    }
  };
  const after = async (minInstances: 0 | 1) => {
    await setBounds({ minInstances, maxInstances: 1 });
    if (minInstances === 1) {
      await until('a model server', async () => (await running()) === 1);
      // Ready, and its first run behind it: what a warm fleet has.
      await predict();
    }
    await sleep(idleSeconds * 1000);
    if (minInstances === 0) await until('the idle model server to stop', async () => (await running()) === 0);
    return predict();
  };
  const cold: number[] = [];
  const warm: number[] = [];
  try {
    for (let repeat = 0; repeat < repeats; repeat++) {
      for (const minInstances of repeat % 2 === 0 ? ([0, 1] as const) : ([1, 0] as const)) {
        const ms = await after(minInstances);
        (minInstances === 0 ? cold : warm).push(ms);
        log(`  ${id}, min ${minInstances}: ${ms.toFixed(0)} ms`);
      }
    }
  } finally {
    await setBounds({ minInstances: 1, maxInstances: 1 });
  }
  return { model: id, idleSeconds, coldMs: summarize(cold), warmMs: summarize(warm) };
};

const JFK = path.resolve(REPO_ROOT, 'test', 'fixtures', 'audio', 'jfk.flac');

/** The echo model (a model server's start alone) and whisper-base (its start and its model's load), jfk.flac served as a caller would. */
export const measureIdleStarts = async (
  api: ApiTarget,
  fleetsTarget: FleetsTarget,
  repeats: number,
  log: (line: string) => void,
): Promise<IdleStartResult[]> => {
  const files = await serveFiles([JFK]);
  try {
    const cases: IdleStartCase[] = [
      { model: 'prognoz/echo', input: { text: 'after idle' } },
      { model: 'openai/whisper-base', input: { audio: files.urlOf(JFK) } },
    ];
    const results: IdleStartResult[] = [];
    for (const idleCase of cases)
      results.push(await measureIdleStart(api, fleetsTarget, idleCase, repeats, IDLE_SECONDS, log));
    return results;
  } finally {
    await files.close();
  }
};
