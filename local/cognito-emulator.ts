import { existsSync } from 'node:fs';
import path from 'node:path';
import { startEmulatorProcess } from './emulator-process.ts';
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
  const endpoint = `http://127.0.0.1:${port}`;
  const emulator = await startEmulatorProcess({
    name: 'the Cognito emulator',
    command: server,
    args: ['-H', '127.0.0.1', '-p', String(port)],
    ready: async () => (await fetch(`${endpoint}/moto-api/`)).ok,
    startSeconds: 30,
  });
  return { endpoint, stop: emulator.stop };
};
