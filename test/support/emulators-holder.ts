/**
 * Starts the local runtime's emulators' process and holds it, as the runtime does, until killed:
 * for the test that kills a runtime outright and looks for what it left behind.
 */
import { startEmulatorsProcess } from '../../local/emulators-process.ts';

const emulators = await startEmulatorsProcess({});
console.log(JSON.stringify({ ready: { pid: emulators.pid, dynamoEndpoint: emulators.dynamoEndpoint } }));
setInterval(() => undefined, 60_000);
