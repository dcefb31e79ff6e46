import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../local/free-port.ts';
import { REPO_ROOT } from '../../local/paths.ts';
import { CogCallbacks } from '../../worker/cog-callbacks.ts';
import { cogModelServer } from '../../worker/model-server.ts';
import { describeModelServerContract, untilReady } from './model-server.contract.ts';

/** coglet (Cog's own runtime, from the repository's Python environment) serving the echo model on a port of its own. */
const startCoglet = async (port?: number): Promise<{ url: string; process: ChildProcess }> => {
  port ??= await freePort();
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

describe('coglet over HTTP, restarted', () => {
  const started: ChildProcess[] = [];
  const callbacks = new CogCallbacks();
  afterAll(async () => {
    await Promise.all(started.map(stop));
    await callbacks.close();
  });

  it('runs a prediction put after a restart to its end: the server that took it is the one its checks find', async () => {
    await callbacks.listen(0);
    const first = await startCoglet();
    started.push(first.process);
    const server = cogModelServer(first.url, callbacks, { streams: false });
    await untilReady(server);
    await stop(first.process);
    started.push((await startCoglet(Number(new URL(first.url).port))).process);
    await untilReady(server);
    // Long enough for the worker's checks that the server is still the one that took the run.
    const ended = await server.predict('after-restart', { text: 'kept', repeat: 1, sleep: 1.2, fail: false }, 60_000);
    expect(ended).toMatchObject({ status: 'succeeded', output: { text: 'kept' } });
  }, 60_000);
});
