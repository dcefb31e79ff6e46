import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { WORKER_ENV } from '../shared/config/worker.ts';
import { readCogConfig } from '../shared/models/cog-config.ts';
import { requireModel } from '../shared/models/registry.ts';
import type { LocalWorker } from './bind.ts';
import { freePort } from './free-port.ts';
import { modelServerProcess } from './model-env.ts';
import { REPO_ROOT } from './paths.ts';
import { localEnvironment } from './process-environment.ts';
import type { Supervisor } from './supervisor.ts';

export interface WorkerHost {
  readonly supervisor: Supervisor;
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

/**
 * Per model of the template, a model server (coglet over its predictor) and its worker, as its
 * task runs them on AWS: the worker's environment is its task definition's, resolved to the local
 * resources, with what only this machine can say — where its model server answers, where coglet
 * calls it back, where file inputs go.
 */
export const startWorkers = async (workers: readonly LocalWorker[], host: WorkerHost): Promise<void> => {
  for (const worker of workers) {
    const model = requireModel(worker.model);
    const folder = path.resolve(REPO_ROOT, model.predictor.folder);
    const modelPort = await freePort();
    const modelUrl = `http://127.0.0.1:${modelPort}`;
    const inputsDir = path.join(host.inputsRoot, model.id.replace('/', '--'));
    mkdirSync(inputsDir, { recursive: true });
    host.supervisor.start({
      name: `model:${model.id}`,
      ...modelServerProcess({
        python: host.pythonOf(model.id),
        folder,
        config: readCogConfig(folder),
        port: modelPort,
        weightsDir: host.weightsDir,
      }),
      url: modelUrl,
    });
    host.supervisor.start({
      name: `worker:${model.id}`,
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
        }),
      },
    });
  }
};
