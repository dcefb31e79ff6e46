import { spawn } from 'node:child_process';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../local/free-port.ts';
import { localKeepRunsMinutes, modelServerProcess } from '../local/model-env.ts';
import { processEnvironment } from '../shared/config/environment.ts';
import { loadModelCatalog } from '../shared/config/model-catalog.ts';
import { REPO_ROOT } from '../local/paths.ts';
import { localWeightsDir } from '../local/weights.ts';
import { readCogConfig } from '../shared/adapters/cog-files.ts';

/**
 * The transcription's model server on its own, as the local runtime starts it but with no service
 * around it: the model server's time without the runtime's other processes sharing the cores.
 * Each run is a synchronous `PUT /predictions/{id}` with the audio as a local file, as the worker
 * hands it over; its time is coglet's `metrics.predict_time`.
 */
export const startModelServerAlone = async (python: string, folderName = 'transcribe') => {
  const folder = path.join(REPO_ROOT, 'models', folderName);
  const port = await freePort();
  const spec = modelServerProcess({
    python,
    folder,
    config: readCogConfig(folder),
    port,
    weightsDir: localWeightsDir(),
    keepRunsMinutes: localKeepRunsMinutes(loadModelCatalog(processEnvironment())),
  });
  const child = spawn(spec.command, spec.args, {
    cwd: spec.cwd,
    env: { ...process.env, ...spec.env },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    const health = await fetch(`${url}/health-check`)
      .then((response) => response.json() as Promise<{ status?: string }>)
      .catch(() => null);
    if (health?.status === 'READY') break;
    if (Date.now() > deadline || child.exitCode !== null)
      throw new Error('the model server on its own did not become ready');
    await sleep(250);
  }
  let runs = 0;
  return {
    predictSeconds: async (file: string): Promise<number> => {
      const response = await fetch(`${url}/predictions/alone-${++runs}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ input: { audio: file } }),
      });
      const body = (await response.json()) as { status?: string; metrics?: { predict_time?: number }; error?: string };
      if (body.status !== 'succeeded' || body.metrics?.predict_time === undefined)
        throw new Error(`the model server on its own answered ${response.status}: ${String(body.error)}`);
      return body.metrics.predict_time;
    },
    close: () => child.kill(),
  };
};
