import { parseModelFlag } from '../local/brought-models.ts';
import { startLocalRuntime } from '../local/runtime.ts';
import { FILE_MODEL } from './output-files.ts';
import { stopWhenParentGoes } from './processes.ts';

/**
 * The local runtime in a process of its own, in memory, as the benchmark's system under test:
 * its memory is then measured apart from the load generator's. Prints one ready line.
 */
// A fleet let scale to zero stops its idle model server after 2 s: the idle-start section's
// stand-in for an idle hour on AWS. Fleets keep their first bounds (min 1, max 1) otherwise.
process.env.PROGNOZ_LOCAL_SCALE_IN_SECONDS ??= '2';
const runtime = await startLocalRuntime({
  port: 0,
  // A Cog predictor that returns files, for the output-file section.
  models: [parseModelFlag(`${FILE_MODEL.id}=${FILE_MODEL.folder}`)],
  log: (line) => console.error(line),
});
const ready = {
  apiUrl: runtime.apiUrl,
  apiToken: runtime.apiToken,
  tableName: runtime.tableName,
  dynamoEndpoint: runtime.dynamoEndpoint,
  fleetsEndpoint: runtime.fleets.endpoint,
  clusterPrefix: runtime.fleets.clusterPrefix,
  origin: new URL(runtime.apiUrl).origin,
};
console.log(JSON.stringify({ ready }));
stopWhenParentGoes(() => runtime.stop());
