import { createServer } from 'node:http';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PredictionView } from '../shared/api/prediction-view.ts';
import type { DynamoUsage, MeterSnapshot } from '../local/meter.ts';
import { combineSnapshots, EMPTY_RECEIVE } from '../local/meter.ts';
import { isTerminalStatus } from '../shared/domain/prediction.ts';
import { apiCall, type ApiTarget } from '../test/support/http-client.ts';
import type { AwsPrices } from './aws-prices.ts';
import { localJson, meterSnapshot } from './local-endpoints.ts';
import { closeServer } from '../local/close-server.ts';

/** What one prediction asked of each AWS service, averaged over a scenario's predictions. */
export interface CallsPerPrediction {
  readonly apiRequests: number;
  readonly lambdaInvocations: Record<string, number>;
  readonly lambdaGbSeconds: number;
  readonly dynamoCalls: Record<string, number>;
  readonly dynamoReadUnits: number;
  readonly dynamoWriteUnits: number;
  /** Calls and units by operation and the kinds of item touched (`UpdateItem PREDICTION`): where the units go. */
  readonly dynamoByItem: Record<string, DynamoUsage>;
  readonly sqsRequests: Record<string, number>;
  readonly s3Requests: Record<string, number>;
  readonly stateTransitions: number;
}

export interface ScenarioCost {
  readonly scenario: string;
  readonly description: string;
  readonly predictions: number;
  readonly perPrediction: CallsPerPrediction;
  /** Dollars per 1,000 predictions, by service, and their total (GPU and model instances excluded). */
  readonly dollarsPerThousand: Record<
    'apiGateway' | 'lambda' | 'stepFunctions' | 'dynamodb' | 'sqs' | 's3' | 'total',
    number
  >;
}

/** S3 bills reads (GET, HEAD) at one price and everything else (PUT, LIST, …) at another. */
const S3_READS = new Set(['GetObject', 'HeadObject', 'HeadBucket']);

const sum = (values: Iterable<number>) => [...values].reduce((a, b) => a + b, 0);
const perEach = (counts: Record<string, number>, n: number): Record<string, number> =>
  Object.fromEntries(Object.entries(counts).map(([key, value]) => [key, value / n] as const));

/** after − before, key by key. */
export const meterDelta = (after: MeterSnapshot, before: MeterSnapshot): MeterSnapshot =>
  combineSnapshots(after, before, (a, b) => a - b);

/** Per prediction; Lambda GB-s from each function's configured memory and its measured wall time. */
export const callsPerPrediction = (
  delta: MeterSnapshot,
  predictions: number,
  memoryMiBOf: (entry: string) => number,
): CallsPerPrediction => {
  const sqs = Object.fromEntries(Object.entries(delta.sqs).filter(([action]) => action !== EMPTY_RECEIVE));
  return {
    apiRequests: sum(Object.values(delta.api)) / predictions,
    lambdaInvocations: perEach(
      Object.fromEntries(Object.entries(delta.lambda).map(([entry, usage]) => [entry, usage.invocations])),
      predictions,
    ),
    lambdaGbSeconds:
      sum(Object.entries(delta.lambda).map(([entry, usage]) => (memoryMiBOf(entry) / 1024) * (usage.totalMs / 1000))) /
      predictions,
    dynamoCalls: perEach(
      Object.fromEntries(Object.entries(delta.dynamodb).map(([op, usage]) => [op, usage.calls])),
      predictions,
    ),
    dynamoReadUnits: sum(Object.values(delta.dynamodb).map((usage) => usage.readUnits)) / predictions,
    dynamoWriteUnits: sum(Object.values(delta.dynamodb).map((usage) => usage.writeUnits)) / predictions,
    dynamoByItem: Object.fromEntries(
      Object.entries(delta.dynamodbByItem).map(([call, usage]) => [
        call,
        {
          calls: usage.calls / predictions,
          readUnits: usage.readUnits / predictions,
          writeUnits: usage.writeUnits / predictions,
        },
      ]),
    ),
    sqsRequests: perEach(sqs, predictions),
    s3Requests: perEach(delta.s3, predictions),
    stateTransitions: delta.stepFunctions.transitions / predictions,
  };
};

export const dollarsPerThousand = (
  calls: CallsPerPrediction,
  prices: AwsPrices,
): ScenarioCost['dollarsPerThousand'] => {
  const lambdaRequests = sum(Object.values(calls.lambdaInvocations));
  const parts = {
    apiGateway: (calls.apiRequests * prices.apiGatewayRestPerMillionRequests) / 1e6,
    lambda:
      (lambdaRequests * prices.lambdaPerMillionRequests) / 1e6 + calls.lambdaGbSeconds * prices.lambdaArmPerGbSecond,
    stepFunctions: (calls.stateTransitions * prices.stepFunctionsPerThousandTransitions) / 1000,
    dynamodb:
      (calls.dynamoWriteUnits * prices.dynamoPerMillionWriteUnits +
        calls.dynamoReadUnits * prices.dynamoPerMillionReadUnits) /
      1e6,
    sqs: (sum(Object.values(calls.sqsRequests)) * prices.sqsPerMillionRequests) / 1e6,
    s3: Object.entries(calls.s3Requests).reduce(
      (dollars, [operation, count]) =>
        dollars + (count * (S3_READS.has(operation) ? prices.s3PerThousandGets : prices.s3PerThousandPuts)) / 1000,
      0,
    ),
  };
  const perThousand = Object.fromEntries(Object.entries(parts).map(([key, dollars]) => [key, dollars * 1000])) as Omit<
    ScenarioCost['dollarsPerThousand'],
    'total'
  >;
  return { ...perThousand, total: sum(Object.values(perThousand)) };
};

export interface RuntimeEndpoints {
  readonly target: ApiTarget;
  /** The local runtime's origin, for its /_local/ endpoints (not metered). */
  readonly origin: string;
}

/** The model job queues, read from the SQS emulator itself (not metered): one client for a whole cost run. */
const jobQueuesOf = async (origin: string) => {
  const { sqsEndpoint, queues } = await localJson<{
    sqsEndpoint: string;
    queues: { logicalId: string; url: string }[];
  }>(origin, 'queues');
  const sqs = new SQSClient({
    endpoint: sqsEndpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    useQueueUrlAsEndpoint: false,
  });
  const urls = queues.filter((queue) => /Jobs[0-9A-F]{8}$/.test(queue.logicalId)).map((queue) => queue.url);
  return {
    /** Messages on them, in flight or not. */
    held: async (): Promise<number> => {
      const counts = await Promise.all(
        urls.map(async (url) => {
          const { Attributes: attributes = {} } = await sqs.send(
            new GetQueueAttributesCommand({
              QueueUrl: url,
              AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
            }),
          );
          return (
            Number(attributes.ApproximateNumberOfMessages) + Number(attributes.ApproximateNumberOfMessagesNotVisible)
          );
        }),
      );
      return counts.reduce((sum, count) => sum + count, 0);
    },
    close: () => sqs.destroy(),
  };
};

/** Waits until no execution runs and no worker holds a job. */
const settleWith = async (origin: string, jobs: Awaited<ReturnType<typeof jobQueuesOf>>): Promise<void> => {
  for (;;) {
    const { running_executions: running } = await localJson<{ running_executions: number }>(origin, 'health');
    if (running === 0) break;
    await sleep(25);
  }
  // The worker ends the execution before it writes the end, and lets go of the job after.
  while ((await jobs.held()) > 0) await sleep(25);
};

/** Long enough for the calls that follow an execution's end (message deletes, acks, heartbeats). */
const TRAILING_CALLS_MS = 2000;

const create = async (target: ApiTarget, input: Record<string, unknown>): Promise<PredictionView> => {
  const created = await apiCall<PredictionView>(target, 'prognoz/echo', { body: input });
  if (created.status !== 201) throw new Error(`create answered ${created.status}: ${JSON.stringify(created.json)}`);
  return created.json;
};

const expectStatus = async (target: ApiTarget, id: string, status: string): Promise<void> => {
  const { json } = await apiCall<PredictionView>(target, `predictions/${id}`);
  if (json.status !== status) throw new Error(`prediction ${id} is ${json.status}, not ${status}`);
};

/** The echo model server's own record: it has the prediction once the model runs it. */
/** Waits until the echo model server (coglet, one run at a time) is busy with the run. */
const untilModelRuns = async (modelUrl: string, id: string): Promise<void> => {
  for (let i = 0; i < 400; i++) {
    const health = (await (await fetch(`${modelUrl}/health-check`)).json()) as { status?: string };
    if (health.status === 'BUSY') return;
    await sleep(25);
  }
  throw new Error(`the model never started ${id}`);
};

/**
 * Section 5: runs each scenario `predictions` times, one prediction at a time, and reads what the
 * local runtime's meter counted. Each ends with the one GET a caller makes for the result.
 */
export const measureCosts = async (
  endpoints: RuntimeEndpoints,
  echoModelUrl: string,
  predictions: number,
  memoryMiBOf: (entry: string) => number,
  prices: AwsPrices,
): Promise<ScenarioCost[]> => {
  const { target, origin } = endpoints;
  const jobs = await jobQueuesOf(origin);
  const settle = () => settleWith(origin, jobs);
  const deliveries: string[] = [];
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      deliveries.push(String(req.headers['x-webhook-id']));
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const address = receiver.address();
  const hook = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hook`;

  const scenarios: { scenario: string; description: string; once: () => Promise<void> }[] = [
    {
      scenario: 'succeeded',
      description: 'create (async), model runs, succeeded; one GET of the result',
      once: async () => {
        const { id } = await create(target, { text: 'cost', sleep: 0 });
        await settle();
        await expectStatus(target, id, 'succeeded');
      },
    },
    {
      scenario: 'succeeded + webhook',
      description: 'as above, with a webhook delivered once (2xx at the first attempt)',
      once: async () => {
        const before = deliveries.length;
        const { id } = await create(target, { text: 'cost', sleep: 0, webhook: hook });
        await settle();
        while (deliveries.length === before) await sleep(25);
        await expectStatus(target, id, 'succeeded');
      },
    },
    {
      scenario: 'succeeded, 100 KB input',
      description:
        'as the first, with an input of 100 KB (a long text, which the echo model returns: an output of 100 KB, in the outputs bucket as large outputs are)',
      once: async () => {
        const { id } = await create(target, { text: 'x'.repeat(100_000), repeat: 1, sleep: 0 });
        await settle();
        await expectStatus(target, id, 'succeeded');
      },
    },
    {
      scenario: 'succeeded, 1 MB output',
      description:
        'as the first, with an output of 1 MB, which the worker stores in the outputs bucket and the GET reads back',
      once: async () => {
        const { id } = await create(target, { text: 'x'.repeat(100_000), repeat: 10, sleep: 0 });
        await settle();
        await expectStatus(target, id, 'succeeded');
      },
    },
    {
      scenario: '5 s run, polled',
      description:
        "create (async) of a 5 s run, watched by GET every 0.5 s (the Python client's default) until it ends",
      once: async () => {
        const { id } = await create(target, { text: 'cost', sleep: 5 });
        for (;;) {
          const { json } = await apiCall<PredictionView>(target, `predictions/${id}`);
          if (isTerminalStatus(json.status)) break;
          await sleep(500);
        }
        await settle();
      },
    },
    {
      scenario: '5 s run, streamed',
      description: 'create (async) of a 5 s run, watched through its event stream (urls.stream) until `done`',
      once: async () => {
        const { urls } = await create(target, { text: 'cost', sleep: 5 });
        const stream = await fetch(urls?.stream ?? '', { headers: { accept: 'text/event-stream' } });
        const events = await stream.text();
        if (!events.includes('event: done')) throw new Error('the stream ended without done');
        await settle();
      },
    },
    {
      scenario: 'canceled',
      description: 'create (async), canceled 1 s after the model started; one GET of the result',
      once: async () => {
        const { id } = await create(target, { text: 'cost', sleep: 30 });
        await untilModelRuns(echoModelUrl, id);
        await sleep(1000);
        const canceled = await apiCall(target, `predictions/${id}/cancel`, { method: 'POST' });
        if (canceled.status !== 200) throw new Error(`cancel answered ${canceled.status}`);
        await settle();
        await expectStatus(target, id, 'canceled');
      },
    },
  ];

  try {
    const results: ScenarioCost[] = [];
    for (const { scenario, description, once } of scenarios) {
      const before = await meterSnapshot(origin);
      for (let i = 0; i < predictions; i++) await once();
      await sleep(TRAILING_CALLS_MS);
      const delta = meterDelta(await meterSnapshot(origin), before);
      const perPrediction = callsPerPrediction(delta, predictions, memoryMiBOf);
      results.push({
        scenario,
        description,
        predictions,
        perPrediction,
        dollarsPerThousand: dollarsPerThousand(perPrediction, prices),
      });
    }
    return results;
  } finally {
    jobs.close();
    await closeServer(receiver);
  }
};
