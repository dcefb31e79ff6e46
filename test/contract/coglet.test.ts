import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { freePort } from '../../local/free-port.ts';
import { REPO_ROOT } from '../../local/paths.ts';
import { CogCallbacks } from '../../worker/cog-callbacks.ts';
import { cogModelServer } from '../../worker/model-server.ts';
import { describeModelServerContract } from './model-server.contract.ts';

/** coglet (Cog's own runtime, from the repository's Python environment) serving the echo model on a port of its own. */
const startCoglet = async (): Promise<{ url: string; process: ChildProcess }> => {
  const port = await freePort();
  const python = path.join(REPO_ROOT, '.venv', 'bin', 'python');
  const child = spawn(python, ['-m', 'cog.server.http', '--host', '127.0.0.1'], {
    cwd: path.join(REPO_ROOT, 'models', 'echo'),
    env: {
      PATH: [path.dirname(python), process.env.PATH].join(path.delimiter),
      PORT: String(port),
      COG_PREDICT_TYPE_STUB: 'predict.py:Predictor',
      COG_MAX_CONCURRENCY: '1',
      PYTHONUNBUFFERED: '1',
    },
    stdio: 'ignore',
  });
  return { url: `http://127.0.0.1:${port}`, process: child };
};

const stop = async (child: ChildProcess): Promise<void> => {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
};

describeModelServerContract('coglet over HTTP', async () => {
  const coglet = await startCoglet();
  const callbacks = new CogCallbacks();
  await callbacks.listen(0);
  return {
    server: cogModelServer(coglet.url, callbacks, { streams: false }),
    lose: () => stop(coglet.process),
    close: async () => {
      await stop(coglet.process);
      await callbacks.close();
    },
  };
});
