import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './free-port.ts';
import { repositoryPython } from './model-env.ts';

export interface CognitoEmulator {
  readonly endpoint: string;
  stop(): Promise<void>;
}

/**
 * Amazon Cognito's user pools as moto's server emulates them (pinned in
 * local/requirements-emulators.txt, installed into .venv by scripts/setup-local.sh): the same API,
 * AWS-format issuers, and each pool's signing keys at `/<pool id>/.well-known/jwks.json`. In
 * memory: the runtime creates its pools and owner at every start.
 */
export const startCognitoEmulator = async (): Promise<CognitoEmulator> => {
  const server = path.join(path.dirname(repositoryPython()), 'moto_server');
  if (!existsSync(server))
    throw new Error(
      'the Cognito emulator (moto) is not installed: run `npm run setup:local` (npm install does it too)',
    );
  const port = await freePort();
  const child = spawn(server, ['-H', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  child.stderr.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  const endpoint = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the Cognito emulator exited (${child.exitCode}):\n${output}`);
    const ready = await fetch(`${endpoint}/moto-api/`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) throw new Error(`the Cognito emulator did not start within 30 s:\n${output}`);
    await sleep(100);
  }
  return {
    endpoint,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(5000).then(() => child.kill('SIGKILL'))]);
    },
  };
};
