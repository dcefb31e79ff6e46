import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { StateMachineDefinition } from 'aws-local-stepfunctions';
import { dynamoAccountStore } from '../shared/adapters/account-store.ts';
import { s3, sqs } from '../shared/adapters/aws-clients.ts';
import { dynamoPredictionStore } from '../shared/adapters/prediction-store.ts';
import { sqsWebhookNotifier } from '../shared/adapters/webhook-queue.ts';
import { sfnWorkflowClient } from '../shared/adapters/workflow-client.ts';
import { ownerSignInFromEnv, stateMachinesFromEnv, webhookQueueUrlFromEnv } from '../shared/config.ts';
import { systemClock } from '../shared/domain/clock.ts';
import { ENDINGS } from '../shared/domain/endings.ts';
import { asAccountId } from '../shared/domain/ids.ts';
import { generateToken, looksLikeToken } from '../shared/domain/tokens.ts';
import { readCogConfig } from '../shared/models/cog-config.ts';
import { allModels, catalogModels, EXTRA_CATALOG_ENV, WITHHELD_MODELS_ENV } from '../shared/models/registry.ts';
import { prepareBroughtModels, type BroughtModel } from './brought-models.ts';
import { modelServerProcess, repositoryPython } from './model-env.ts';
import { localWeightsDir, notOfferedLine, offeredLocally } from './weights.ts';
import { endPrediction, stoppingExecutions } from '../shared/use-cases/end-prediction.ts';
import { buildConsole } from '../web/build.ts';
import { startApiFront } from './api-front.ts';
import { localTls, trustLocally } from './local-tls.ts';
import { closeServer, startEmulators } from './emulators.ts';
import { LocalEventBus, rateToMs, type LocalRule } from './events.ts';
import { pollEventSource } from './event-sources.ts';
import { invokeLocal } from './lambda-host.ts';
import { freePort } from './free-port.ts';
import { REPO_ROOT } from './paths.ts';
import { ensureOwner, localOwnerCredentials, type OwnerCredentials } from './owner.ts';
import { provisionBuckets, provisionQueues, provisionTables, provisionUserPools } from './provision.ts';
import { localMeter } from './meter.ts';
import { LocalStepFunctions } from './stepfunctions/service.ts';
import { Supervisor, type ProcessStatus } from './supervisor.ts';
import {
  localFunctionArn,
  localStateMachineArn,
  metadataOf,
  resolveIntrinsics,
  resourcesOfType,
  synthesizeTemplate,
  type CfnTemplate,
  type LocalBindings,
} from './template.ts';

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
  /** The owners' user pool's app client (the console's), and the Cognito endpoint. */
  readonly ownerClientId: string;
  readonly cognitoEndpoint: string;
  readonly accountId: string;
  readonly tableName: string;
  readonly dynamoEndpoint: string;
  /** fauxqs (SQS and S3), unmetered. */
  readonly sqsEndpoint: string;
  /** The local Step Functions endpoint (the tests read executions' histories there). */
  readonly stepFunctionsEndpoint: string;
  readonly stepFunctions: LocalStepFunctions;
  processes(): ProcessStatus[];
  stop(): Promise<void>;
}

/** The account `npm start` creates; stable so that a restart keeps its predictions visible. */
export const LOCAL_ACCOUNT_ID = '00000000-0000-4000-8000-000000000001';
/** What the local account starts with: 1,000 ₽, so that it can run predictions at once. */
const LOCAL_ACCOUNT_BALANCE_KOPECKS = 100_000;
export const RESTART_ERROR = ENDINGS.restart;

/**
 * Starts the whole service on this machine (architecture: Local runtime): emulators, the synthesized workflow
 * run by aws-local-stepfunctions, the API front, and per model a worker and a model server.
 */
export const startLocalRuntime = async (options: LocalRuntimeOptions): Promise<LocalRuntime> => {
  const log = options.log ?? ((line: string) => console.log(line));
  const cleanups: (() => Promise<unknown>)[] = [];
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((error: unknown) => log(`stop: ${String(error)}`));
  };
  try {
    // Brought models join the catalog before anything reads it: the template, the handlers, the
    // workers. First of all, so that a cog.yaml this machine cannot run is told before anything starts.
    const brought = await prepareBroughtModels(options.models ?? [], log);
    if (brought.catalogFile) process.env[EXTRA_CATALOG_ENV] = brought.catalogFile;
    const emulators = await startEmulators(options.dataDir ? { dataDir: options.dataDir } : {});
    cleanups.push(() => emulators.stop());
    // Before any process starts: every one of them trusts the certificate the API answers HTTPS with.
    const tls = await localTls();
    trustLocally(tls);
    // The SDK reads these, so every part (handlers here, worker children) reaches the emulators.
    const awsEnv: Record<string, string> = { ...emulators.awsEnv };
    Object.assign(process.env, awsEnv);

    // A model whose weights are not here is withheld from the registry of every part: no model
    // server, no worker, not in the template, not listed, and a create for it is a 404.
    const weightsDir = localWeightsDir();
    const withheld = catalogModels().filter((model) => !offeredLocally(model, weightsDir));
    process.env[WITHHELD_MODELS_ENV] = withheld.map((model) => model.id).join(',');
    for (const model of withheld) log(notOfferedLine(model, weightsDir));

    const template = synthesizeTemplate();
    const tables = await provisionTables(template, new DynamoDBClient({}));
    const queues = await provisionQueues(template, sqs());
    const buckets = await provisionBuckets(template, s3());
    const userPools = await provisionUserPools(template, new CognitoIdentityProviderClient({}));
    const functions = new Map(
      resourcesOfType(template, 'AWS::Lambda::Function').flatMap(([logicalId, resource]) => {
        const entry = metadataOf(resource, 'entry');
        const timeoutSeconds = Number(resource.Properties?.Timeout ?? 3);
        return entry ? [[localFunctionArn(logicalId), { entry, timeoutSeconds }] as const] : [];
      }),
    );
    const resolved = new Map<string, string>();
    const record = (key: string, value: string) => (resolved.set(key, value), value);
    const bindings: LocalBindings = {
      ref: (id) => record(`Ref:${id}`, localRef(id)),
      getAtt: (id, attribute) => record(`GetAtt:${id}.${attribute}`, localGetAtt(id, attribute)),
    };
    // A state machine's ARN comes from its name, as on AWS: the functions find it by its name's prefix.
    const machineArnOf = (id: string): string => {
      const name = template.Resources[id]?.Properties?.StateMachineName;
      return localStateMachineArn(typeof name === 'string' ? name : id);
    };
    const localRef = (id: string): string =>
      tables.get(id) ??
      queues.get(id)?.url ??
      buckets.get(id) ??
      userPools.get(id) ??
      (template.Resources[id]?.Type === 'AWS::StepFunctions::StateMachine' ? machineArnOf(id) : undefined) ??
      (template.Resources[id]?.Type === 'AWS::Lambda::Function' ? id : undefined) ??
      unknownResource(id);
    const localGetAtt = (id: string, attribute: string): string => {
      if (attribute === 'Arn' && template.Resources[id]?.Type === 'AWS::Lambda::Function') return localFunctionArn(id);
      if (attribute === 'Arn' && queues.has(id)) return queues.get(id)?.arn ?? unknownResource(id);
      return unknownResource(`${id}.${attribute}`);
    };
    const machines = resourcesOfType(template, 'AWS::StepFunctions::StateMachine').map(([logicalId, resource]) => ({
      logicalId,
      model: metadataOf(resource, 'model') ?? unknownResource(`model of ${logicalId}`),
      arn: machineArnOf(logicalId),
      definition: JSON.parse(
        String(resolveIntrinsics(resource.Properties?.DefinitionString, bindings)),
      ) as StateMachineDefinition,
    }));
    const [tableName] = [...tables.values()];
    if (!tableName) throw new Error('the template has no table');

    // EventBridge: the sweeper's schedule, and the rule that hears of executions ending.
    const bus = new LocalEventBus(
      eventRules(template, bindings, functions),
      (entry, event) => invokeLocal(entry, event, timeoutOf(functions, entry)),
      log,
    );
    cleanups.push(() => Promise.resolve(bus.stop()));
    const stepFunctions = new LocalStepFunctions(
      machines,
      { dynamodb: new DynamoDBClient({}), sqs: sqs(), functions },
      (ended) =>
        bus.put({
          source: 'aws.states',
          'detail-type': 'Step Functions Execution Status Change',
          resources: [ended.executionArn],
          detail: { ...ended },
        }),
    );
    const sfnEndpoint = await stepFunctions.listen();
    awsEnv.AWS_ENDPOINT_URL_SFN = sfnEndpoint;
    process.env.AWS_ENDPOINT_URL_SFN = sfnEndpoint;

    const appEnv: Record<string, string> = {
      // Every function's environment as the template sets it, resolved to the local resources.
      ...functionEnvironment(template, bindings),
      // Loopback webhooks and file URLs are allowed in the local runtime only.
      PROGNOZ_ALLOW_LOOPBACK: 'true',
      POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'WARN',
      POWERTOOLS_METRICS_DISABLED: 'true',
    };
    Object.assign(process.env, appEnv);

    await recoverInterrupted(tableName, appEnv, log);

    const accounts = dynamoAccountStore(tableName);
    await accounts
      .createAccount(asAccountId(LOCAL_ACCOUNT_ID), systemClock.now(), {
        balanceKopecks: LOCAL_ACCOUNT_BALANCE_KOPECKS,
      })
      .catch((error: unknown) => {
        if (!(error instanceof Error && error.name === 'ConditionalCheckFailedException')) throw error;
      });
    if (options.apiToken !== undefined && !looksLikeToken(options.apiToken)) {
      throw new Error(
        `PROGNOZ_API_TOKEN is not a prognoz API token (pgz_… with a valid checksum); one that is: ${generateToken()}`,
      );
    }
    const apiToken = options.apiToken ?? generateToken();
    await accounts.addToken(asAccountId(LOCAL_ACCOUNT_ID), apiToken, systemClock.now());
    // The console's owner of the local account, in the owners' pool the authorizer trusts.
    const signIn = ownerSignInFromEnv(appEnv);
    if (signIn === null) throw new Error("the template configures no owners' sign-in for the authorizer");
    const owner = localOwnerCredentials();
    await ensureOwner(signIn.poolId, owner, asAccountId(LOCAL_ACCOUNT_ID), accounts, systemClock.now());

    const supervisor = new Supervisor(log);
    cleanups.push(() => supervisor.stopAll());
    // Stopped before the worker and model servers: a run cut short by the stop is found at the
    // next start and ended with RESTART_ERROR.
    cleanups.push(() => stepFunctions.close());
    const inputsRoot = path.join(tmpdir(), `prognoz-inputs-${process.pid}`);
    cleanups.push(() => rm(inputsRoot, { recursive: true, force: true }));
    for (const model of allModels()) {
      const queue = resourcesOfType(template, 'AWS::SQS::Queue').find(
        ([, resource]) => metadataOf(resource, 'model') === model.id && metadataOf(resource, 'role') === 'model-queue',
      );
      if (!queue) continue;
      const folder = path.resolve(REPO_ROOT, model.predictor.folder);
      const config = readCogConfig(folder);
      const python = brought.pythonOf.get(model.id) ?? repositoryPython();
      const modelPort = await freePort();
      const modelUrl = `http://127.0.0.1:${modelPort}`;
      const inputsDir = path.join(inputsRoot, model.id.replace('/', '--'));
      mkdirSync(inputsDir, { recursive: true });
      supervisor.start({
        name: `model:${model.id}`,
        ...modelServerProcess({ python, folder, config, port: modelPort, weightsDir }),
        url: modelUrl,
      });
      supervisor.start({
        name: `worker:${model.id}`,
        command: process.execPath,
        args: ['--import', 'tsx', path.join(REPO_ROOT, 'worker', 'main.ts')],
        cwd: REPO_ROOT,
        env: {
          ...awsEnv,
          ...appEnv,
          PROGNOZ_MODEL_ID: model.id,
          PROGNOZ_QUEUE_URL: queues.get(queue[0])?.url ?? unknownResource(queue[0]),
          PROGNOZ_MODEL_URL: modelUrl,
          PROGNOZ_INPUTS_DIR: inputsDir,
          ...(brought.catalogFile ? { [EXTRA_CATALOG_ENV]: brought.catalogFile } : {}),
        },
      });
    }

    const eventSources = new AbortController();
    const pollers = resourcesOfType(template, 'AWS::Lambda::EventSourceMapping').map(([, mapping]) => {
      const props = mapping.Properties ?? {};
      const queueId = String((props.EventSourceArn as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0]);
      const functionId = (props.FunctionName as { Ref: string }).Ref;
      const queue = queues.get(queueId) ?? unknownResource(queueId);
      const fn = functions.get(localFunctionArn(functionId)) ?? unknownResource(functionId);
      return pollEventSource(
        {
          queueUrl: queue.url,
          queueArn: queue.arn,
          entry: fn.entry,
          timeoutSeconds: fn.timeoutSeconds,
          batchSize: Number(props.BatchSize ?? 10),
          reportBatchItemFailures: ((props.FunctionResponseTypes ?? []) as string[]).includes(
            'ReportBatchItemFailures',
          ),
        },
        sqs(),
        eventSources.signal,
        log,
      );
    });
    cleanups.push(async () => {
      eventSources.abort();
      await Promise.allSettled(pollers);
    });
    const scheduleSeconds = Number(process.env.PROGNOZ_SCHEDULE_EVERY_SECONDS);
    bus.start(Number.isFinite(scheduleSeconds) && scheduleSeconds > 0 ? scheduleSeconds * 1000 : undefined);

    // Built afresh at each start (esbuild takes well under a second), into a folder of this runtime's own.
    const consoleBuild = buildConsole(mkdtempSync(path.join(tmpdir(), 'prognoz-console-')));
    cleanups.push(() => rm(consoleBuild.dir, { recursive: true, force: true }));
    const front = await startApiFront({
      port: options.port,
      tls,
      console: {
        build: consoleBuild,
        config: {
          signIn: { endpoint: awsEnv.AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER ?? '', clientId: signIn.clientId },
        },
      },
      localEndpoints: {
        processes: () => ({ processes: supervisor.status() }),
        // Calls made of each AWS service so far, for the cost model of `npm run bench`.
        meter: () => localMeter.snapshot(),
        ...options.localEndpoints,
        health: () => ({ status: 'ok', running_executions: stepFunctions.runningCount() }),
        queues: () => ({
          sqsEndpoint: emulators.fauxqsAddress,
          queues: [...queues].map(([logicalId, queue]) => ({ logicalId, url: queue.url })),
        }),
        // What the runtime executes, and the local value it gave each intrinsic of the template.
        definitions: () => ({
          machines: machines.map(({ logicalId, model, arn, definition }) => ({ logicalId, model, arn, definition })),
          bindings: Object.fromEntries(resolved),
        }),
      },
    });
    cleanups.push(() => closeServer(front.server));

    return {
      apiUrl: `${front.url}/api/v1/`,
      apiToken,
      owner,
      ownerClientId: signIn.clientId,
      cognitoEndpoint: awsEnv.AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER ?? '',
      accountId: LOCAL_ACCOUNT_ID,
      tableName,
      dynamoEndpoint: emulators.dynamoEndpoint,
      sqsEndpoint: emulators.fauxqsAddress,
      stepFunctionsEndpoint: sfnEndpoint,
      stepFunctions,
      processes: () => supervisor.status(),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
};

/**
 * A restart loses what the emulators kept in memory (executions, queued jobs): every prediction
 * the previous run left unfinished ends `failed` here, through the same end as any other — its
 * hold released, its webhook queued.
 */
const recoverInterrupted = async (
  tableName: string,
  env: Record<string, string>,
  log: (line: string) => void,
): Promise<void> => {
  const store = dynamoPredictionStore(tableName);
  const stateMachineArnOf = stateMachinesFromEnv(env);
  const effects = stoppingExecutions(
    {
      store,
      notifier: sqsWebhookNotifier(webhookQueueUrlFromEnv(env)),
      workflow: sfnWorkflowClient(),
      stateMachineArnOf,
    },
    RESTART_ERROR,
  );
  for (const stale of await store.listActive()) {
    await endPrediction(effects, stale.id, {
      type: 'failed',
      atMs: systemClock.now(),
      error: RESTART_ERROR,
      runtimeMs: null,
      by: 'sweeper',
    });
    log(`recovered prediction ${stale.id}: it was ${stale.status} when the runtime last stopped; now failed`);
  }
};

/** The template's EventBridge rules, each bound to the function entries of its targets. */
const eventRules = (
  template: CfnTemplate,
  bindings: LocalBindings,
  functions: ReadonlyMap<string, { entry: string }>,
): LocalRule[] =>
  resourcesOfType(template, 'AWS::Events::Rule').map(([logicalId, rule]) => {
    const props = rule.Properties ?? {};
    const targets = ((props.Targets ?? []) as { Arn: unknown }[]).map((target) => {
      const arn = String(resolveIntrinsics(target.Arn, bindings));
      return functions.get(arn)?.entry ?? unknownResource(`the target ${arn} of ${logicalId}`);
    });
    return {
      name: logicalId,
      targets,
      ...(typeof props.ScheduleExpression === 'string' ? { everyMs: rateToMs(props.ScheduleExpression) } : {}),
      ...(props.EventPattern !== undefined
        ? { pattern: resolveIntrinsics(props.EventPattern, bindings) as Record<string, unknown> }
        : {}),
    };
  });

const timeoutOf = (functions: ReadonlyMap<string, { entry: string; timeoutSeconds: number }>, entry: string): number =>
  [...functions.values()].find((fn) => fn.entry === entry)?.timeoutSeconds ?? 30;

/**
 * The union of the template's function environments, but for the variables a function marks as
 * AWS's only; one variable with two values is an error.
 */
const functionEnvironment = (template: CfnTemplate, bindings: LocalBindings): Record<string, string> => {
  const env: Record<string, string> = {};
  for (const [logicalId, fn] of resourcesOfType(template, 'AWS::Lambda::Function')) {
    if (!metadataOf(fn, 'entry')) continue;
    const variables =
      (fn.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
    const awsOnly = new Set(metadataOf(fn, 'awsOnlyEnv')?.split(','));
    for (const [name, value] of Object.entries(variables)) {
      if (awsOnly.has(name)) continue;
      const resolved = String(resolveIntrinsics(value, bindings));
      if (env[name] !== undefined && env[name] !== resolved)
        throw new Error(`${logicalId} sets ${name} differently from another function`);
      env[name] = resolved;
    }
  }
  return env;
};

const unknownResource = (what: string): never => {
  throw new Error(`the local runtime cannot bind ${what}`);
};
