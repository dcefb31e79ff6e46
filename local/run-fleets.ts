import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import { sqs } from '../shared/adapters/sqs-client.ts';
import { WORKER_ENV } from '../shared/config/worker.ts';
import type { FleetBounds } from '../shared/domain/deployment-bounds.ts';
import { clusterOfModel } from '../shared/fleet-config.ts';
import type { LocalWorker } from './bind.ts';
import { instancesOf, type WorkerHost } from './fleet-instances.ts';
import { FleetScaler, queueBacklog } from './fleet-scaler.ts';
import { LocalFleetEndpoint } from './fleets.ts';

/** What an operator set, by model, kept beside the local table as a scalable target keeps it over a deploy. */
const keptBoundsSchema = z.record(
  z.string(),
  z.object({ minInstances: z.int().nonnegative(), maxInstances: z.int().nonnegative() }),
);

const readKept = (file: string | null): Record<string, FleetBounds> => {
  if (file === null || !existsSync(file)) return {};
  const parsed = keptBoundsSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  return parsed.success ? parsed.data : {};
};

/**
 * A fleet's bounds before any operator changed them. One machine keeps one model server of each
 * model warm, as the local runtime always has: min 1 and max 1 (within the model's cap), where the
 * manifest's bounds are sized for a cloud fleet. An operator changes them as on AWS.
 */
const LOCAL_FIRST_BOUNDS: FleetBounds = { minInstances: 1, maxInstances: 1 };

export interface LocalFleetsOptions {
  readonly workers: readonly LocalWorker[];
  readonly host: WorkerHost;
  readonly clusterPrefix: string;
  /** Where the bounds operators set are kept over a restart; null: for this run only (an in-memory table). */
  readonly boundsFile: string | null;
  readonly scaleInAfterMs: number;
  readonly log: (line: string) => void;
}

/**
 * Each model's fleet, sized by its scaler, and the ECS and Application Auto Scaling endpoint the
 * API reads and resizes them through (AWS_ENDPOINT_URL_ECS, AWS_ENDPOINT_URL_APPLICATION_AUTO_SCALING).
 */
export const runLocalFleets = async (options: LocalFleetsOptions) => {
  const kept = readKept(options.boundsFile);
  const scalers = options.workers.map((worker) => {
    const model = options.host.catalog.require(worker.model);
    const queueUrl = worker.environment[WORKER_ENV.queueUrl];
    if (!queueUrl) throw new Error(`the worker of ${model.id} is told no queue`);
    return new FleetScaler({
      cluster: clusterOfModel(options.clusterPrefix, model),
      bounds: kept[model.id] ?? LOCAL_FIRST_BOUNDS,
      backlogPerTask: model.fleet.backlogPerTask,
      instances: instancesOf(worker, options.host),
      backlog: async () => queueBacklog(await sqs(), queueUrl),
      scaleInAfterMs: options.scaleInAfterMs,
      everyMs: 1000,
      onResize: (bounds) => {
        kept[model.id] = bounds;
        if (options.boundsFile !== null) writeFileSync(options.boundsFile, JSON.stringify(kept, null, 2));
      },
      log: options.log,
    });
  });
  for (const scaler of scalers) await scaler.start();
  const endpoint = new LocalFleetEndpoint(scalers);
  const url = await endpoint.listen();
  return {
    url,
    stop: async () => {
      for (const scaler of scalers) scaler.stop();
      await endpoint.close();
    },
  };
};

/** Where `runLocalFleets` keeps the bounds beside a persisted table. */
export const boundsFileIn = (dataDir: string | undefined): string | null =>
  dataDir === undefined ? null : path.join(dataDir, 'fleet-bounds.json');
