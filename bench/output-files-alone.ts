/**
 * `npm run bench:files`: the output-file section of the bench alone (bench/output-files.ts),
 * against a local runtime of its own. Prints the figures as JSON.
 */
import { parseModelFlag } from '../local/brought-models.ts';
import { startLocalRuntime } from '../local/runtime.ts';
import { createAccount, UNLIMITED_ACCOUNT } from './accounts.ts';
import { FILE_MODEL, measureOutputFiles } from './output-files.ts';

const runtime = await startLocalRuntime({
  port: 0,
  models: [parseModelFlag(`${FILE_MODEL.id}=${FILE_MODEL.folder}`)],
  log: () => undefined,
});
try {
  const apiToken = await createAccount(
    { tableName: runtime.tableName, dynamoEndpoint: runtime.dynamoEndpoint },
    UNLIMITED_ACCOUNT,
  );
  const repeats = Number(process.argv[2] ?? 10);
  console.log(JSON.stringify(await measureOutputFiles({ apiUrl: runtime.apiUrl, apiToken }, repeats), null, 2));
} finally {
  await runtime.stop();
}
