/**
 * The emulators' own process (local/emulators-process.ts starts it): DynamoDB Local, fauxqs and
 * moto, and the proxies that order and meter the service's calls to them. Apart from the API
 * process, as AWS's services are apart from API Gateway and Lambda: the calls the workers and the
 * workflow make do not queue behind the API's requests on one event loop (architecture: Local runtime).
 */
import { startEmulators, type Emulators } from './emulators.ts';
import type { EmulatorHostMessage, EmulatorHostRequest } from './emulators-process.ts';
import { localMeter } from './meter.ts';

const tell = (message: EmulatorHostMessage) => process.send?.(message);

const options = JSON.parse(process.argv[2] ?? '{}') as { dataDir?: string };
let emulators: Emulators | null = null;
let stopping: Promise<void> | null = null;

/** Stops the emulators (DynamoDB Local writes its data, its process ends), then this process. */
const stopAndExit = () =>
  (stopping ??= (async () => {
    await emulators?.stop();
    process.exit(0);
  })());

// The runtime gone, even killed outright, its IPC channel closes: nothing is left behind.
process.on('disconnect', () => void stopAndExit());
process.on('SIGTERM', () => void stopAndExit());
process.on('SIGINT', () => undefined);
process.on('message', (request: EmulatorHostRequest) => {
  if (request.type === 'meter') tell({ type: 'meter', id: request.id, snapshot: localMeter.snapshot() });
  else void stopAndExit();
});

try {
  emulators = await startEmulators(options);
  const { dynamoEndpoint, fauxqsAddress, awsEnv } = emulators;
  tell({ type: 'ready', dynamoEndpoint, fauxqsAddress, awsEnv });
} catch (error) {
  tell({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
  process.exit(1);
}
