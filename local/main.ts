import { rmSync, writeFileSync } from 'node:fs';
import { DATA_DIR_ENV, localDataDir, ownIdentity, runtimeFileIn, type LocalRuntimeFile } from '../cli/local-runtime.ts';
import { DataFolderInUse } from './data-folder.ts';
import { LOCAL_REGION } from './paths.ts';
import { parseArgs } from 'node:util';
import { parseModelFlag } from './brought-models.ts';
import { CogConfigError } from '../shared/catalog/cog-config.ts';
import { checkedRepositoryCatalog } from '../shared/config/model-catalog.ts';
import { checkModelNames } from '../shared/catalog/resource-names.ts';
import { STACK_NAME } from '../shared/stack-name.ts';
import { startLocalRuntime } from './runtime.ts';

/** `npm start`: the whole service on this machine, until Ctrl-C. */
const port = Number(process.env.PORT ?? 8080);
const dataDir = localDataDir();
// `npm start -- --model acme/wordcount=./wordcount[,price=0.02]` (repeatable) serves a Cog predictor folder too.
const { values: flags } = parseArgs({ options: { model: { type: 'string', multiple: true, default: [] } } });
/** What the user must change before the runtime can start: said plainly, not as a stack trace. */
const refuse = (reason: string): never => {
  console.error(`prognoz: the local runtime did not start:\n${reason}`);
  process.exit(1);
};
const models = (() => {
  try {
    const brought = (flags.model ?? []).map((flag) => parseModelFlag(flag));
    // Checked as the synthesis checks them, before anything starts: ids that would share an AWS name.
    checkModelNames(
      STACK_NAME,
      [...checkedRepositoryCatalog().models, ...brought].map((model) => model.id),
    );
    return brought;
  } catch (error) {
    return refuse(error instanceof Error ? error.message : String(error));
  }
})();
console.log('prognoz: starting the local runtime…');
const runtime = await startLocalRuntime({
  port,
  dataDir,
  models,
  ...(process.env.PROGNOZ_API_TOKEN ? { apiToken: process.env.PROGNOZ_API_TOKEN } : {}),
}).catch((error: unknown) => {
  // A brought model's cog.yaml this machine cannot run (its lines at fault), or a data folder
  // another runtime holds (which one, and how to run beside it): not a stack trace.
  if (!(error instanceof CogConfigError) && !(error instanceof DataFolderInUse)) throw error;
  return refuse(error.message);
});

// Tells `npx prognoz` (the admin command line) how to reach this runtime while it runs: in the
// data folder this runtime holds, which no other runtime writes to.
const runtimeFile = runtimeFileIn(dataDir);
const described: LocalRuntimeFile = {
  runtime: ownIdentity(),
  port: Number(new URL(runtime.apiUrl).port),
  apiUrl: runtime.apiUrl,
  dataDir,
  dynamoEndpoint: runtime.dynamoEndpoint,
  tableName: runtime.tableName,
  region: LOCAL_REGION,
  cognitoEndpoint: runtime.cognitoEndpoint,
  ownerPoolId: runtime.ownerPoolId,
  fleetsEndpoint: runtime.fleets.endpoint,
  fleetClusterPrefix: runtime.fleets.clusterPrefix,
  s3Endpoint: runtime.outputs.s3Endpoint,
  outputBucket: runtime.outputs.bucket,
};
writeFileSync(runtimeFile, JSON.stringify(described, null, 2));

console.log(`
prognoz is running on the local runtime.

  console    ${new URL(runtime.apiUrl).origin}/   (sign in as the owner below)
  API        ${runtime.apiUrl}
  reference  ${new URL(runtime.apiUrl).origin}/docs   (the OpenAPI document: ${runtime.apiUrl}openapi.json)
  guides     README.md (a five-minute walk-through) and docs/ (the API, webhooks, your own models, the local runtime)
  API token  ${runtime.apiToken}   (account ${runtime.accountId})
  owner      ${runtime.owner.email} / ${runtime.owner.password}   (PROGNOZ_OWNER_EMAIL / PROGNOZ_OWNER_PASSWORD; Cognito emulator ${runtime.cognitoEndpoint}, client ${runtime.ownerClientId})
  models     ${runtime.catalog.offered.map((model) => model.id).join(', ')}
  data       ${dataDir}
  admin      npx prognoz accounts show ${runtime.accountId}${process.env[DATA_DIR_ENV] === undefined ? '' : ` --data-dir ${dataDir}`}

Try it:
  export PROGNOZ_API_TOKEN=${runtime.apiToken}
  curl -s -X POST ${runtime.apiUrl}prognoz/echo \\
    -H "Authorization: Bearer $PROGNOZ_API_TOKEN" -H 'Content-Type: application/json' \\
    -H 'Prefer: wait' -d '{"text": "привет"}'

Ctrl-C stops everything.
`);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    console.log('\nprognoz: stopping…');
    rmSync(runtimeFile, { force: true });
    void runtime.stop().then(() => {
      console.log('prognoz: stopped.');
      process.exit(0);
    });
  });
}
