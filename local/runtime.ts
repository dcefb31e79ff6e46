import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { configureS3 } from '../shared/adapters/s3-client.ts';
import { sqs } from '../shared/adapters/sqs-client.ts';
import { authorizerConfigFromEnv } from '../shared/config/authorizer.ts';
import { sweeperConfigFromEnv } from '../shared/config/sweeper.ts';
import { AUTHORIZER_ENTRY, entryOf } from '../shared/api/routes.ts';
import { systemClock } from '../shared/domain/clock.ts';
import { processEnvironment } from '../shared/config/environment.ts';
import { EXTRA_CATALOG_ENV, loadModelCatalog, WITHHELD_MODELS_ENV } from '../shared/config/model-catalog.ts';
import type { ModelCatalog } from '../shared/catalog/model-catalog.ts';
import { hostModelCatalog } from '../functions/model-catalog.ts';
import { apiConfigFromEnv } from '../shared/config/api.ts';
import { buildConsole } from '../web/build.ts';
import { startApiFront } from './api-front.ts';
import { authorizerCachingOf } from './authorizer-cache.ts';
import { bindTemplate, type BoundTemplate } from './bind.ts';
import { prepareBroughtModels, type BroughtModel } from './brought-models.ts';
import { identityOf } from '../cli/local-runtime.ts';
import { closeServer } from './close-server.ts';
import { takeDataFolder } from './data-folder.ts';
import { startLifeline } from './lifeline.ts';
import { startEmulatorsProcess } from './emulators-process.ts';
import { pollEventSource } from './event-sources.ts';
import { LocalEventBus } from './events.ts';
import type { LocalFunction } from './lambda-host.ts';
import { prepareLocalAccount, LOCAL_ACCOUNT_ID } from './local-account.ts';
import { localTls, trustLocally } from './local-tls.ts';
import { combineSnapshots, localMeter } from './meter.ts';
import { repositoryPython } from './model-env.ts';
import type { OwnerCredentials } from './owner.ts';
import { provisionResources } from './provision.ts';
import { recoverInterrupted } from './recover-interrupted.ts';
import { boundsFileIn, runLocalFleets } from './run-fleets.ts';
import { LocalStepFunctions } from './stepfunctions/service.ts';
import { Supervisor, type ProcessStatus } from './supervisor.ts';
import { synthesizeTemplateApart } from './synthesis-process.ts';
import { localWeightsDir, notOfferedLine, offeredLocally } from './weights.ts';

export { LOCAL_ACCOUNT_ID } from './local-account.ts';
export { RESTART_ERROR } from './recover-interrupted.ts';

export interface LocalRuntimeOptions {
  /** API port; 0 picks a free one. */
  readonly port: number;
  /** Keep DynamoDB data here across restarts; in memory when absent. */
  readonly dataDir?: string;
  /** The API token to create (PROGNOZ_API_TOKEN); a new one is generated when absent. */
  readonly apiToken?: string;
  readonly log?: (line: string) => void;
  /** More JSON endpoints under /_local/ (the tests read their captured logs there). */
  readonly localEndpoints?: Readonly<Record<string, () => unknown>>;
  /** Cog predictors to serve beside the manifest's (`npm start -- --model id=folder`). */
  readonly models?: readonly BroughtModel[];
}

export interface LocalRuntime {
  readonly apiUrl: string;
  readonly apiToken: string;
  /** The local account's owner, who signs in to the console. */
  readonly owner: OwnerCredentials;
  /** The owners' user pool and its app client (the console's), and the Cognito endpoint. */
  readonly ownerPoolId: string;
  readonly ownerClientId: string;
  readonly cognitoEndpoint: string;
  readonly accountId: string;
  readonly tableName: string;
  readonly dynamoEndpoint: string;
  /** fauxqs (SQS and S3), unmetered. */
  readonly sqsEndpoint: string;
  /** The local Step Functions endpoint (the tests read executions' histories there). */
  readonly stepFunctionsEndpoint: string;
  /** The fleets' ECS and Application Auto Scaling endpoint, and the start of their clusters' names. */
  readonly fleets: { readonly endpoint: string; readonly clusterPrefix: string };
  /** The outputs bucket (outputs, large inputs, uploaded files) and the S3 emulator serving it. */
  readonly outputs: { readonly s3Endpoint: string; readonly bucket: string };
  /** The models this runtime knows, and those it serves (its weights present). */
  readonly catalog: ModelCatalog;
  readonly stepFunctions: LocalStepFunctions;
  processes(): ProcessStatus[];
  stop(): Promise<void>;
}

/**
 * Starts the whole service on this machine (architecture: Local runtime), in three phases:
 * provision (emulators, and in them what the synthesized template declares), bind (the
 * template's references resolved to those resources, each process given its own environment),
 * start (the workflow run by aws-local-stepfunctions, per model a worker and a model server, the
 * event sources and rules, and the API front).
 */
export const startLocalRuntime = async (options: LocalRuntimeOptions): Promise<LocalRuntime> => {
  const log = options.log ?? ((line: string) => console.log(line));
  const cleanups: (() => Promise<unknown>)[] = [];
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((error: unknown) => log(`stop: ${String(error)}`));
  };
  // Its children's lifeline, first: should this process be killed outright, it ends them and then
  // gives the data folder up.
  const lifeline = startLifeline();
  const folder =
    options.dataDir === undefined
      ? null
      : await takeDataFolder(options.dataDir, {
          port: options.port,
          lifeline: lifeline.pid === null ? null : identityOf(lifeline.pid),
          log,
        }).catch(async (error: unknown) => {
          await lifeline.close();
          throw error;
        });
  cleanups.push(() => {
    if (folder !== null) {
      lifeline.keep(folder.lockFile);
      folder.release();
    }
    return lifeline.close();
  });
  if (folder !== null) lifeline.removeAtEnd(folder.lockFile);
  try {
    // Provision. Brought models join the catalog before anything reads it: the template, the
    // handlers, the workers. First of all, so that a cog.yaml this machine cannot run is told before anything starts.
    const brought = await prepareBroughtModels(options.models ?? [], log);
    // What this machine gives every process, the handlers hosted here and the workers alike, as
    // Lambda and ECS give theirs: the SDK's endpoints, the catalog, Powertools' settings. Set in
    // this process's environment too, where the SDK, the catalog and Powertools read them.
    const hostEnv: Record<string, string> = {};
    const setHostEnv = (values: Readonly<Record<string, string>>) => {
      Object.assign(hostEnv, values);
      Object.assign(process.env, values);
    };
    if (brought.catalogFile) {
      const catalogFile = brought.catalogFile;
      setHostEnv({ [EXTRA_CATALOG_ENV]: catalogFile });
      cleanups.push(() => rm(path.dirname(catalogFile), { recursive: true, force: true }));
    }
    // A model whose weights are not here is withheld from the catalog of every part: no model
    // server, no worker, not in the template, not listed, and a create for it is a 404.
    const weightsDir = localWeightsDir();
    const withheld = loadModelCatalog(processEnvironment()).all.filter((model) => !offeredLocally(model, weightsDir));
    for (const model of withheld) log(notOfferedLine(model, weightsDir));
    setHostEnv({
      [WITHHELD_MODELS_ENV]: withheld.map((model) => model.id).join(','),
      POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'WARN',
      POWERTOOLS_METRICS_DISABLED: 'true',
    });
    // The catalog as this process's environment now makes it: the one the functions hosted here
    // use (functions/model-catalog.ts).
    const catalog = hostModelCatalog(loadModelCatalog(processEnvironment()));
    // The template (for the catalog just settled) is synthesized while the emulators start.
    const [emulatorsStart, templateSynthesis] = await Promise.allSettled([
      startEmulatorsProcess({
        ...(options.dataDir ? { dataDir: options.dataDir } : {}),
        onEnded: (why) =>
          log(`prognoz: ${why}: DynamoDB, SQS and S3 are gone, every request will fail; restart the runtime`),
      }),
      synthesizeTemplateApart(),
    ]);
    if (emulatorsStart.status === 'rejected') throw emulatorsStart.reason;
    const emulators = emulatorsStart.value;
    cleanups.push(() => emulators.stop());
    if (templateSynthesis.status === 'rejected') throw templateSynthesis.reason;
    const template = templateSynthesis.value;
    setHostEnv(emulators.awsEnv);
    // The emulator serves every bucket on one host and port: this process's client (its handlers', the
    // provisioning's) addresses them by path, as the workers are told to (PROGNOZ_S3_PATH_STYLE in awsEnv).
    configureS3({ forcePathStyle: true });
    // Before any process starts: every one of them trusts the certificate the API answers HTTPS with.
    const tls = await localTls();
    trustLocally(tls);
    const resources = await provisionResources(template);
    const [tableName] = [...resources.tables.values()];
    if (!tableName) throw new Error('the template has no table');

    // Bind: each function's environment is its own, as the template sets it; the runtime's own
    // environment tunes their settings (PROGNOZ_WEBHOOK_RETRY_DELAYS, PROGNOZ_RETENTION_DAYS, …).
    const bound = bindTemplate(template, resources, process.env);
    const signIn = authorizerConfigFromEnv(bound.functionAt(AUTHORIZER_ENTRY).environment).ownerSignIn;
    if (signIn === null) throw new Error("the template configures no owners' sign-in for the authorizer");

    // Start.
    const { bus, stepFunctions, sfnEndpoint } = await startWorkflows(bound, log);
    cleanups.push(() => Promise.resolve(bus.stop()));
    setHostEnv({ AWS_ENDPOINT_URL_SFN: sfnEndpoint });
    await recoverInterrupted(sweeperConfigFromEnv(sweeperOf(bound).environment, catalog), catalog, systemClock, log);
    const account = await prepareLocalAccount({
      tableName,
      ownerPoolId: signIn.poolId,
      apiToken: options.apiToken,
      clock: systemClock,
    });

    const supervisor = new Supervisor(log, lifeline);
    cleanups.push(() => supervisor.stopAll());
    // Stopped before the worker and model servers: a run cut short by the stop is found at the
    // next start and ended with RESTART_ERROR.
    cleanups.push(() => stepFunctions.close());
    const inputsRoot = path.join(tmpdir(), `prognoz-inputs-${process.pid}`);
    cleanups.push(() => rm(inputsRoot, { recursive: true, force: true }));
    const clusterPrefix = apiConfigFromEnv(
      bound.functionAt(entryOf('deployments')).environment,
      catalog,
    ).fleetClusterPrefix;
    if (clusterPrefix === null) throw new Error('the template tells the deployments routes no fleet cluster prefix');
    const scaleInSeconds = Number(process.env.PROGNOZ_LOCAL_SCALE_IN_SECONDS ?? 60);
    const fleets = await runLocalFleets({
      workers: bound.workers,
      host: {
        supervisor,
        catalog,
        hostEnv,
        settings: process.env,
        pythonOf: (model) => brought.pythonOf.get(model) ?? repositoryPython(),
        weightsDir,
        inputsRoot,
      },
      clusterPrefix,
      boundsFile: boundsFileIn(options.dataDir),
      scaleInAfterMs: (Number.isFinite(scaleInSeconds) && scaleInSeconds >= 0 ? scaleInSeconds : 60) * 1000,
      log,
    });
    cleanups.push(() => fleets.stop());
    const fleetsEndpoint = fleets.url;
    setHostEnv({ AWS_ENDPOINT_URL_ECS: fleetsEndpoint, AWS_ENDPOINT_URL_APPLICATION_AUTO_SCALING: fleetsEndpoint });

    const eventSources = new AbortController();
    const queues = await sqs();
    const pollers = bound.eventSources.map((source) => pollEventSource(source, queues, eventSources.signal, log));
    cleanups.push(async () => {
      eventSources.abort();
      await Promise.allSettled(pollers);
    });
    const scheduleSeconds = Number(process.env.PROGNOZ_SCHEDULE_EVERY_SECONDS);
    bus.start(Number.isFinite(scheduleSeconds) && scheduleSeconds > 0 ? scheduleSeconds * 1000 : undefined);

    // Built afresh at each start (esbuild takes well under a second), into a folder of this runtime's own.
    const consoleBuild = buildConsole(mkdtempSync(path.join(tmpdir(), 'prognoz-console-')));
    cleanups.push(() => rm(consoleBuild.dir, { recursive: true, force: true }));
    const cognitoEndpoint = emulators.awsEnv.AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER ?? '';
    const front = await startApiFront({
      port: options.port,
      functionAt: bound.functionAt,
      authorizerCaching: authorizerCachingOf(template),
      tls,
      console: { build: consoleBuild, config: { signIn: { endpoint: cognitoEndpoint, clientId: signIn.clientId } } },
      localEndpoints: {
        processes: () => ({ processes: supervisor.status() }),
        // Calls made of each AWS service so far, for the cost model of `npm run bench`.
        meter: async () => combineSnapshots(localMeter.snapshot(), await emulators.meter(), (a, b) => a + b),
        ...options.localEndpoints,
        health: () => ({
          status: emulators.running() ? 'ok' : 'emulators-ended',
          running_executions: stepFunctions.runningCount(),
        }),
        queues: () => ({
          sqsEndpoint: emulators.fauxqsAddress,
          queues: [...resources.queues].map(([logicalId, queue]) => ({ logicalId, url: queue.url })),
        }),
        // What the runtime executes, and the local value it gave each intrinsic of the template.
        definitions: () => ({
          machines: bound.machines.map(({ logicalId, model, arn, definition }) => ({
            logicalId,
            model,
            arn,
            definition,
          })),
          bindings: Object.fromEntries(bound.resolved),
        }),
      },
    });
    cleanups.push(() => closeServer(front.server));
    folder?.serving(Number(new URL(front.url).port), `${front.url}/api/v1/`);

    return {
      apiUrl: `${front.url}/api/v1/`,
      apiToken: account.apiToken,
      owner: account.owner,
      ownerPoolId: signIn.poolId,
      ownerClientId: signIn.clientId,
      cognitoEndpoint,
      accountId: LOCAL_ACCOUNT_ID,
      tableName,
      dynamoEndpoint: emulators.dynamoEndpoint,
      sqsEndpoint: emulators.fauxqsAddress,
      stepFunctionsEndpoint: sfnEndpoint,
      fleets: { endpoint: fleetsEndpoint, clusterPrefix },
      outputs: {
        s3Endpoint: emulators.awsEnv.AWS_ENDPOINT_URL_S3 ?? '',
        bucket: apiConfigFromEnv(bound.functionAt(entryOf('get-prediction')).environment, catalog).outputBucket,
      },
      catalog,
      stepFunctions,
      processes: () => supervisor.status(),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
};

/** The sweeper's function: a restart's unfinished predictions are ended with its configuration. */
const sweeperOf = (bound: BoundTemplate): LocalFunction => {
  const sweeper = [...bound.functions.values()].find((fn) => fn.kind === 'sweeper');
  if (!sweeper) throw new Error('the template has no sweeper');
  return sweeper;
};

/**
 * The models' workflows, run by the local Step Functions, and EventBridge: the sweeper's schedule,
 * and the rule that hears of executions ending.
 */
const startWorkflows = async (bound: BoundTemplate, log: (line: string) => void) => {
  const bus = new LocalEventBus(bound.rules, log);
  const stepFunctions = new LocalStepFunctions(
    bound.machines,
    { dynamodb: new DynamoDBClient({}), sqs: await sqs(), functions: bound.functions },
    (ended) =>
      bus.put({
        source: 'aws.states',
        'detail-type': 'Step Functions Execution Status Change',
        resources: [ended.executionArn],
        detail: { ...ended },
      }),
  );
  return { bus, stepFunctions, sfnEndpoint: await stepFunctions.listen() };
};
