import { phaseLimitsOf } from '../../shared/catalog/registry.ts';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SFNClient } from '@aws-sdk/client-sfn';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { predictionKey } from '../../shared/adapters/table-keys.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { inject } from 'vitest';
import { dynamoAccountStore } from '../../shared/adapters/account-store.ts';
import { dynamoPredictionStore } from '../../shared/adapters/prediction-store.ts';
import { executionArnOf } from '../../shared/adapters/workflow-client.ts';
import { holdFor } from '../../shared/domain/billing.ts';
import { asAccountId, newPredictionId, type PredictionId } from '../../shared/domain/ids.ts';
import { isTerminalStatus } from '../../shared/domain/prediction.ts';
import { createPrediction as newPrediction } from '../../shared/domain/transition.ts';
import { testCatalog } from './catalog.ts';
import { generateToken } from '../../shared/domain/tokens.ts';
import type { PredictionView } from '../../shared/api/prediction-view.ts';
import { localProcesses } from '../../bench/local-endpoints.ts';
import type { ProcessStatus } from '../../local/supervisor.ts';
import { apiCall, type ApiResponse, type CallOptions } from './http-client.ts';

export const runtime = () => inject('runtime');

export type { ApiResponse, CallOptions } from './http-client.ts';

/** One real HTTP call to the local runtime's API. */
export const call = <T = Record<string, unknown>>(path: string, options: CallOptions = {}): Promise<ApiResponse<T>> =>
  apiCall<T>(runtime(), path, options);

export const createPrediction = (input: Record<string, unknown>, options: CallOptions = {}) =>
  call<PredictionView>('prognoz/echo', { ...options, method: 'POST', body: input });

export const getPrediction = (id: string, options: CallOptions = {}) =>
  call<PredictionView>(`predictions/${id}`, options);

export const cancelPrediction = (id: string, options: CallOptions = {}) =>
  call<PredictionView>(`predictions/${id}/cancel`, { ...options, method: 'POST' });

/** Polls until `done` holds for the prediction, or fails after `timeoutMs`. */
export const pollUntil = async (
  id: string,
  done: (prediction: PredictionView) => boolean,
  timeoutMs = 30_000,
  options: CallOptions = {},
): Promise<PredictionView> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { json } = await getPrediction(id, options);
    if (done(json)) return json;
    if (Date.now() > deadline) throw new Error(`prediction ${id} is still ${json.status} after ${timeoutMs} ms`);
    await sleep(100);
  }
};

/** Waits until `check` holds, asking every 250 ms, or fails naming `what` after `timeoutMs`. */
export const until = async (what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> => {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
};

export const untilTerminal = (id: string, timeoutMs?: number, options: CallOptions = {}) =>
  pollUntil(id, (p) => isTerminalStatus(p.status), timeoutMs, options);

/** A document client on the test runtime's DynamoDB Local. */
export const localDynamo = (): DynamoDBDocumentClient =>
  DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint: runtime().dynamoEndpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
  );

/** A prediction's item as the table holds it (its attributes, not the domain's view): empty when there is none. */
export const rawPredictionItem = async (id: string): Promise<Record<string, unknown>> =>
  (await localDynamo().send(new GetCommand({ TableName: runtime().tableName, Key: predictionKey(id) }))).Item ?? {};

interface LocalQueues {
  readonly sqsEndpoint: string;
  readonly queues: { logicalId: string; url: string }[];
}

const localQueues = async (): Promise<LocalQueues> =>
  (await (await fetch(`${runtime().origin}/_local/queues`)).json()) as LocalQueues;

/**
 * Drops the authorizer answers the local API front has cached, as `aws apigateway
 * flush-stage-authorizers-cache` does on AWS: the next request of every token runs the authorizer.
 */
export const flushAuthorizerCache = async (): Promise<void> => {
  const response = await fetch(`${runtime().origin}/_local/flush-authorizer-cache`);
  if (!response.ok) throw new Error(`flushing the authorizer cache answered ${response.status}`);
};

/** An SQS client on the test runtime's fauxqs, unmetered. */
export const localSqs = (): SQSClient =>
  new SQSClient({
    endpoint: runtime().sqsEndpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    useQueueUrlAsEndpoint: false,
  });

/** The URL of the queue of the template whose logical id starts with `prefix`. */
export const queueUrl = async (prefix: string): Promise<string> => {
  const found = (await localQueues()).queues.find((queue) => queue.logicalId.startsWith(prefix));
  if (!found) throw new Error(`no queue ${prefix}`);
  return found.url;
};

export const webhookQueueUrl = (): Promise<string> => queueUrl('WebhooksQueue');

/** A Step Functions client on the test runtime's local Step Functions service. */
export const localStepFunctions = (): SFNClient =>
  new SFNClient({
    endpoint: runtime().stepFunctionsEndpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });

/** The service's own prediction store, on the test runtime's DynamoDB Local. */
export const localPredictionStore = () => dynamoPredictionStore(runtime().tableName, localDynamo());

/** The execution of an echo prediction, named after it, on the local Step Functions service. */
export const echoExecutionArn = async (predictionId: string): Promise<string> => {
  const { machines } = (await (await fetch(`${runtime().origin}/_local/definitions`)).json()) as {
    machines: { arn: string; model: string }[];
  };
  const machine = machines.find((m) => m.model === 'prognoz/echo')?.arn ?? '';
  return executionArnOf(machine, predictionId);
};

/**
 * Records an echo prediction as a create does before it starts the workflow — as if the create
 * died right there — created `createdAgoMs` ago.
 */
export const insertPrediction = async (
  token: string,
  options: { createdAgoMs?: number; webhook?: string | null; cancelAfterSeconds?: number } = {},
): Promise<PredictionId> => {
  const id = newPredictionId();
  const owner = asAccountId((await accountOf(token)).id);
  const nowMs = Date.now() - (options.createdAgoMs ?? 0);
  const inserted = await localPredictionStore().insert(
    newPrediction({
      id,
      model: 'prognoz/echo',
      owner,
      input: { kind: 'inline', value: { text: 'stranded', repeat: 1, sleep: 0, fail: false } },
      webhook: options.webhook ?? null,
      cancelAfterSeconds: options.cancelAfterSeconds ?? null,
      nowMs,
      hold: holdFor(testCatalog.require('prognoz/echo'), nowMs),
      limits: phaseLimitsOf(testCatalog.require('prognoz/echo')),
    }),
    null,
  );
  if (!inserted.ok) throw inserted.error;
  if (inserted.value.kind !== 'inserted') throw new Error(`the prediction was not inserted: ${inserted.value.kind}`);
  return id;
};

/** Another account with its own token, made through the same store the service uses. */
export const createOtherAccount = async (
  initial: { balanceKopecks?: number; monthlyLimitKopecks?: number | null; ratePerSecond?: number } = {
    balanceKopecks: 10_000,
  },
): Promise<string> => {
  const accounts = dynamoAccountStore(runtime().tableName, localDynamo());
  const account = asAccountId(crypto.randomUUID());
  const token = generateToken();
  await accounts.createAccount(account, Date.now(), initial);
  await accounts.addToken(account, token, Date.now());
  return token;
};

export interface AccountView {
  readonly id: string;
  readonly balance: number;
  readonly held: number;
  readonly spent_this_month: number;
  readonly monthly_limit: number | null;
}

/** GET /account with this token. */
export const accountOf = async (token: string): Promise<AccountView> =>
  (await call<AccountView>('account', { token })).json;

export type ProcessInfo = ProcessStatus;

export const processes = (): Promise<ProcessInfo[]> => localProcesses(runtime().origin);

export const processNamed = async (prefix: string): Promise<ProcessInfo> => {
  const found = (await processes()).find((p) => p.name.startsWith(prefix));
  if (!found) throw new Error(`no process ${prefix}`);
  return found;
};

/** The echo model server's health (coglet's `GET /health-check` status: READY, BUSY, …). */
export const modelHealth = async (model = 'prognoz/echo'): Promise<string> => {
  const server = await processNamed(`model:${model}`);
  const response = await fetch(`${server.url ?? ''}/health-check`);
  return ((await response.json()) as { status: string }).status;
};

/** What coglet logged of a prediction (it logs each run's start and end with the prediction's id). */
export const modelLogOf = async (id: string): Promise<string[]> => {
  const { lines } = (await (await fetch(`${runtime().origin}/_local/logs`)).json()) as { lines: string[] };
  return lines.filter((line) => line.includes(`"prediction_id":"${id}"`));
};

/** Waits until a supervised process runs again under a new pid. */
export const waitForRestart = async (prefix: string, oldPid: number, timeoutMs = 20_000): Promise<ProcessInfo> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const info = await processNamed(prefix);
    if (info.pid !== null && info.pid !== oldPid) return info;
    if (Date.now() > deadline) throw new Error(`${prefix} did not restart`);
    await sleep(100);
  }
};
