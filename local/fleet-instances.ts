import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { WORKER_ENV } from '../shared/config/worker.ts';
import { readCogConfig } from '../shared/adapters/cog-files.ts';
import type { ModelCatalog } from '../shared/catalog/model-catalog.ts';
import type { LocalWorker } from './bind.ts';
import { freePort } from './free-port.ts';
import { localKeepRunsMinutes, modelServerProcess } from './model-env.ts';
import { localConcurrencyOf } from './model-machine.ts';
import { REPO_ROOT } from './paths.ts';
import { localEnvironment } from './process-environment.ts';
import type { Supervisor } from './supervisor.ts';

export interface WorkerHost {
  readonly supervisor: Supervisor;
  /** The models this machine knows (the runtime's catalog). */
  readonly catalog: ModelCatalog;
  /** What every process of this machine is given (the SDK's endpoints, the catalog, the log level). */
  readonly hostEnv: Readonly<Record<string, string>>;
  /** The runtime's own environment, whose settings the workers take (PROGNOZ_DRAIN_SECONDS, …). */
  readonly settings: Readonly<Record<string, string | undefined>>;
  /** The Python a model's server runs with. */
  readonly pythonOf: (model: string) => string;
  readonly weightsDir: string;
  /** Under which each model's workers fetch their file inputs, a folder each. */
  readonly inputsRoot: string;
}

/** The processes and inputs folder of one instance of a model's fleet: the first keeps the model's plain names. */
const instanceNames = (model: string, instance: number) => {
  const after = (separator: string) => (instance === 1 ? '' : `${separator}${instance}`);
  return {
    modelServer: `model:${model}${after('#')}`,
    worker: `worker:${model}${after('#')}`,
    inputs: `${model.replace('/', '--')}${after('--')}`,
  };
};

/** How long a scaled-in worker may drain its runs before it is killed (ECS's stopTimeout is at most 120 s). */
const DRAIN_GRACE_MS = 120_000;

/** Starts and stops the instances of one model's fleet. */
export interface InstanceControl {
  start(instance: number): Promise<void>;
  /** Its model servers running now. */
  running(): number;
  /** The worker first (it drains: takes no new job, ends or hands back its runs), then its model server. */
  stop(instance: number): Promise<void>;
}

/**
 * A model's instances: each a model server (coglet over its predictor) and its worker, as its task
 * runs them on AWS. The worker's environment is its task definition's, resolved to the local
 * resources, with what only this machine can say — where its model server answers, where coglet
 * calls it back, where file inputs go (a folder per instance: a worker cancels the runs it finds
 * left in its folder at its start).
 */
export const instancesOf = (worker: LocalWorker, host: WorkerHost): InstanceControl => {
  const model = host.catalog.require(worker.model);
  const folder = path.resolve(REPO_ROOT, model.predictor.folder);
  return {
    async start(instance) {
      const names = instanceNames(model.id, instance);
      const modelPort = await freePort();
      const modelUrl = `http://127.0.0.1:${modelPort}`;
      const inputsDir = path.join(host.inputsRoot, names.inputs);
      mkdirSync(inputsDir, { recursive: true });
      const config = readCogConfig(folder);
      const concurrency = await localConcurrencyOf(config);
      host.supervisor.start({
        name: names.modelServer,
        ...modelServerProcess({
          python: host.pythonOf(model.id),
          folder,
          config: { ...config, concurrency },
          port: modelPort,
          weightsDir: host.weightsDir,
          keepRunsMinutes: localKeepRunsMinutes(host.catalog),
        }),
        url: modelUrl,
      });
      host.supervisor.start({
        name: names.worker,
        command: process.execPath,
        args: ['--import', 'tsx', path.join(REPO_ROOT, 'worker', 'main.ts')],
        cwd: REPO_ROOT,
        env: {
          ...host.hostEnv,
          ...localEnvironment('worker', worker.environment, host.settings, {
            [WORKER_ENV.modelUrl]: modelUrl,
            // Beside its model server, on loopback: any free port.
            [WORKER_ENV.callbackHost]: '127.0.0.1',
            [WORKER_ENV.callbackPort]: '0',
            [WORKER_ENV.inputsDir]: inputsDir,
            [WORKER_ENV.slots]: String(concurrency),
          }),
        },
      });
    },
    running() {
      const first = instanceNames(model.id, 1).modelServer;
      return host.supervisor
        .status()
        .filter((p) => (p.name === first || p.name.startsWith(`${first}#`)) && p.pid !== null).length;
    },
    async stop(instance) {
      const names = instanceNames(model.id, instance);
      await host.supervisor.stop(names.worker, DRAIN_GRACE_MS);
      await host.supervisor.stop(names.modelServer, 5_000);
    },
  };
};
