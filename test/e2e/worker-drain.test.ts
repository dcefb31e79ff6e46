import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalRuntime, type LocalRuntime } from '../../local/runtime.ts';
import { dynamoPredictionStore } from '../../shared/adapters/prediction-store.ts';
import type { AccountView } from '../../shared/api/account-view.ts';
import type { PredictionView } from '../../shared/api/prediction-view.ts';
import type { PredictionId } from '../../shared/domain/ids.ts';
import { isTerminalStatus } from '../../shared/domain/prediction.ts';
import { phaseLimitsOf } from '../../shared/catalog/registry.ts';
import { testCatalog } from '../support/catalog.ts';

/** Short, so a run outlasts it; ECS's is 100 s. */
const DRAIN_SECONDS = 2;
const RUN_SECONDS = 8;
const WORKER = 'worker:prognoz/echo';
const { maxAttempts } = phaseLimitsOf(testCatalog.require('prognoz/echo'));

/**
 * A runtime of its own, whose workers drain for DRAIN_SECONDS (they inherit its environment),
 * so that the suites' shared runtime keeps the default.
 */
let runtime: LocalRuntime;
const lines: string[] = [];
beforeAll(async () => {
  process.env.PROGNOZ_DRAIN_SECONDS = String(DRAIN_SECONDS);
  process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
  runtime = await startLocalRuntime({ port: 0, models: [], log: (line) => lines.push(line) });
}, 180_000);
afterAll(async () => {
  await runtime?.stop();
}, 60_000);

const api = async <T>(path: string, body?: unknown): Promise<T> => {
  const response = await fetch(new URL(path, runtime.apiUrl), {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${runtime.apiToken}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return (await response.json()) as T;
};

const until = async <T>(what: string, look: () => Promise<T | null>, timeoutMs = 30_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await look();
    if (found !== null) return found;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms\n${lines.join('\n')}`);
    await sleep(20);
  }
};

const local = { region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
const stored = () =>
  dynamoPredictionStore(
    runtime.tableName,
    DynamoDBDocumentClient.from(new DynamoDBClient({ ...local, endpoint: runtime.dynamoEndpoint })),
  );

/** How many messages of the echo model's job queue another worker could receive now. */
const visibleJobs = async (): Promise<number> => {
  const origin = new URL(runtime.apiUrl).origin;
  const { queues } = (await (await fetch(`${origin}/_local/queues`)).json()) as {
    queues: { logicalId: string; url: string }[];
  };
  const jobs = queues.filter((queue) => /echo/i.test(queue.logicalId) && /jobs/i.test(queue.logicalId));
  if (jobs.length !== 1) throw new Error(`the echo job queue is not one of ${JSON.stringify(queues)}`);
  const sqs = new SQSClient({ ...local, endpoint: runtime.sqsEndpoint, useQueueUrlAsEndpoint: false });
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: jobs[0]?.url, AttributeNames: ['ApproximateNumberOfMessages'] }),
  );
  return Number(Attributes?.ApproximateNumberOfMessages);
};

describe('a worker stopped mid-run (a scale-in, a deployment, an instance going away)', () => {
  it('hands the run back at its drain deadline and exits 0; another worker runs it once, billed once, no worker counted lost', async () => {
    const before = await api<AccountView>('account');
    const created = await api<PredictionView>('prognoz/echo', { text: 'handed back', sleep: RUN_SECONDS });
    let startedAt: string | null = null;

    // As many hand-backs as the model allows attempts: were they counted, the next claim would fail it.
    for (let round = 1; round <= maxAttempts; round++) {
      const running = await until('the prediction running again', async () => {
        const view = await api<PredictionView>(`predictions/${created.id}`);
        return view.status === 'processing' && view.started_at !== startedAt ? view : null;
      });
      startedAt = running.started_at;
      const worker = runtime.processes().find((process) => process.name === WORKER);
      const pid = worker?.pid ?? 0;
      expect(pid).toBeGreaterThan(0);

      process.kill(pid, 'SIGTERM');

      // The worker exits only once its job is handed back; the supervisor starts the next one after it.
      await until('the stopped worker to exit', () =>
        Promise.resolve(runtime.processes().find((process) => process.name === WORKER)?.pid === pid ? null : true),
      );
      // Its message is visible at once, not at the end of its lease; the prediction is queued, its attempt given back.
      expect(await visibleJobs()).toBe(1);
      expect(await stored().get(created.id as PredictionId)).toMatchObject({ status: 'queued', attempts: 0 });
    }

    const done = await until(
      'the prediction to end',
      async () => {
        const view = await api<PredictionView>(`predictions/${created.id}`);
        return isTerminalStatus(view.status) ? view : null;
      },
      60_000,
    );
    expect(done).toMatchObject({ status: 'succeeded', output: { text: 'handed back' } });
    expect(done.started_at).not.toBe(startedAt);
    // Billed for the run that finished, not for the time the handed-back runs took.
    expect(done.runtime ?? 0).toBeGreaterThanOrEqual(RUN_SECONDS);
    expect(done.runtime ?? 0).toBeLessThan(RUN_SECONDS + DRAIN_SECONDS);
    expect(await stored().get(created.id as PredictionId)).toMatchObject({ status: 'succeeded', attempts: 1 });
    const after = await api<AccountView>('account');
    expect(after.held).toBe(0);
    expect(Number((after.spent_this_month - before.spent_this_month).toFixed(2))).toBe(done.cost);
    expect(Number((before.balance - after.balance).toFixed(2))).toBe(done.cost);

    const workerLines = lines.filter((line) => line.startsWith(`[${WORKER}]`));
    // The workers' own log is heard here (so a lost worker would be too).
    expect(workerLines.some((line) => line.includes('worker started'))).toBe(true);
    expect(workerLines.filter((line) => line.includes('exited (0); restarting'))).toHaveLength(maxAttempts);
    expect(workerLines.filter((line) => line.includes('was lost'))).toEqual([]);
  }, 150_000);
});
