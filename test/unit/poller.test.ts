import { randomUUID } from 'node:crypto';
import { CreateQueueCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { startFauxqs } from 'fauxqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_REGION } from '../../local/paths.ts';
import type { ModelHealth } from '../../shared/ports/model-server.ts';
import { pollQueue } from '../../worker/poller.ts';

/**
 * The worker's poller on a real SQS emulator (fauxqs), against a model server whose health the test
 * sets: with `concurrency.max` 2 it holds two jobs at once, and takes another only when coglet says
 * a slot is free (READY), never while it says BUSY; a slot takes its next job as its run ends.
 */
let fauxqs: Awaited<ReturnType<typeof startFauxqs>>;
let sqs: SQSClient;

beforeAll(async () => {
  fauxqs = await startFauxqs({ port: 0, logger: false, defaultRegion: LOCAL_REGION });
  sqs = new SQSClient({
    endpoint: fauxqs.address,
    region: LOCAL_REGION,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    useQueueUrlAsEndpoint: false,
  });
});
afterAll(async () => {
  sqs.destroy();
  await fauxqs.stop();
});

const queueOf = async (jobs: readonly string[]): Promise<string> => {
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: `poller-${randomUUID()}` }));
  if (!QueueUrl) throw new Error('fauxqs created no queue');
  for (const predictionId of jobs) {
    await sqs.send(
      new SendMessageCommand({ QueueUrl, MessageBody: JSON.stringify({ predictionId, taskToken: 'token' }) }),
    );
  }
  return QueueUrl;
};

/** Resolves once `check` holds, looking every 10 ms. */
const until = async (check: () => boolean): Promise<void> => {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
};

const healthOf = (status: ModelHealth['status']): ModelHealth => ({ status, setupError: null, startedAt: 'now' });

/** A model server whose health the test sets, counting how often it is asked. */
const countingHealth = (status: () => ModelHealth['status']) => {
  const server = {
    checks: 0,
    health: () => {
      server.checks += 1;
      return Promise.resolve(healthOf(status()));
    },
  };
  return server;
};

describe('the worker poller with two slots', () => {
  it('runs two jobs at once, and takes a third only when the model server has a free slot again', async () => {
    const jobs = [randomUUID(), randomUUID(), randomUUID()];
    const third = jobs[2];
    const queueUrl = await queueOf(jobs);
    let status: ModelHealth['status'] = 'READY';
    const modelServer = countingHealth(() => status);
    const running = new Set<string>();
    const taken: string[] = [];
    const release = new Map<string, () => void>();
    const stop = new AbortController();
    const polling = pollQueue({
      sqs,
      queueUrl,
      modelServer,
      slots: 2,
      leaseSeconds: 30,
      waitSeconds: 1,
      signal: stop.signal,
      log: () => undefined,
      handle: async ({ predictionId }) => {
        taken.push(predictionId);
        running.add(predictionId);
        await new Promise<void>((resolve) => release.set(predictionId, resolve));
        running.delete(predictionId);
        return { kind: 'delete' };
      },
    });

    // Two jobs run at once: one per slot of the model server.
    await until(() => running.size === 2);
    expect(taken).toHaveLength(2);
    expect(taken).not.toContain(third);

    // One ends while coglet still holds its slot (it frees it a moment after the end): BUSY.
    status = 'BUSY';
    const firstDone = taken[0] ?? '';
    release.get(firstDone)?.();
    await until(() => !running.has(firstDone));
    const checksBefore = modelServer.checks;
    await until(() => modelServer.checks >= checksBefore + 3);
    expect(taken).toHaveLength(2);

    // The slot is free: the third job is taken.
    status = 'READY';
    await until(() => taken.length === 3);
    expect(taken[2]).toBe(third);
    for (const id of [...running]) release.get(id)?.();
    stop.abort();
    await polling;
  });
});

describe('the worker poller with one slot, as a run ends', () => {
  it("takes the next job while the last one's end is being recorded, and stops taking jobs while the endings pile up", async () => {
    const jobs = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const queueUrl = await queueOf(jobs);
    const taken: string[] = [];
    const ended: string[] = [];
    const endRun = new Map<string, () => void>();
    const recordEnd = new Map<string, () => void>();
    const stop = new AbortController();
    const modelServer = countingHealth(() => 'READY');
    const polling = pollQueue({
      sqs,
      queueUrl,
      modelServer,
      slots: 1,
      leaseSeconds: 30,
      waitSeconds: 1,
      signal: stop.signal,
      log: () => undefined,
      handle: async ({ predictionId }, _renew, _setupError, runEnded) => {
        taken.push(predictionId);
        await new Promise<void>((resolve) => endRun.set(predictionId, resolve));
        runEnded();
        await new Promise<void>((resolve) => recordEnd.set(predictionId, resolve));
        ended.push(predictionId);
        return { kind: 'delete' };
      },
    });

    await until(() => taken.length === 1);
    const [first = ''] = taken;
    endRun.get(first)?.();
    // The model server is free: the second job runs while the first one's end is still being recorded.
    await until(() => taken.length === 2);
    expect(ended).toEqual([]);
    const second = taken[1] ?? '';
    endRun.get(second)?.();
    // Two ends under way and one slot: no third job until one of them is recorded.
    await until(() => recordEnd.has(second));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(taken).toHaveLength(2);
    recordEnd.get(first)?.();
    await until(() => taken.length === 3);
    expect(ended).toEqual([first]);
    // The model server answered each run: it was asked how it is only before the first.
    expect(modelServer.checks).toBe(1);

    // Stopping waits for the ends under way, and deletes each job's message once its end is recorded.
    stop.abort();
    const third = taken[2] ?? '';
    endRun.get(third)?.();
    await until(() => recordEnd.has(third));
    let stopped = false;
    void polling.then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(stopped).toBe(false);
    recordEnd.get(second)?.();
    recordEnd.get(third)?.();
    await polling;
    expect(ended).toEqual([first, second, third]);
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, WaitTimeSeconds: 0, MaxNumberOfMessages: 10 }),
    );
    expect(
      Messages.map((message) => (JSON.parse(message.Body ?? '{}') as { predictionId: string }).predictionId),
    ).toEqual([jobs[3]]);
  });
});

describe('a worker stopping while it waits for a job (a scale-in, a deploy)', () => {
  it('lets its receive answer and hands back the job it brings at once, not a lease later', async () => {
    // Before, the stop aborted the receive: the emulator, as SQS does, still gave the poll the next
    // job, which no one read, and which stayed hidden for the whole lease (30 s here).
    const queueUrl = await queueOf([]);
    const stop = new AbortController();
    let receives = 0;
    const counting = new SQSClient({
      endpoint: fauxqs.address,
      region: LOCAL_REGION,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      useQueueUrlAsEndpoint: false,
    });
    counting.middlewareStack.add(
      (next) => (args) => {
        receives += 1;
        return next(args);
      },
      { step: 'initialize' },
    );
    const handled: string[] = [];
    const polling = pollQueue({
      sqs: counting,
      queueUrl,
      modelServer: { health: () => Promise.resolve(healthOf('READY')) },
      slots: 1,
      leaseSeconds: 30,
      waitSeconds: 5,
      signal: stop.signal,
      log: () => undefined,
      handle: ({ predictionId }) => {
        handled.push(predictionId);
        return Promise.resolve({ kind: 'delete' });
      },
    });
    await until(() => receives === 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    stop.abort();
    // The job comes while the stopping worker's long poll is still open: SQS gives it to that poll.
    const job = randomUUID();
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: queueUrl,
        MessageBody: JSON.stringify({ predictionId: job, taskToken: 't' }),
      }),
    );
    await polling;
    expect(handled).toEqual([]);
    const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, WaitTimeSeconds: 0 }));
    expect(Messages.map((message) => JSON.parse(message.Body ?? '{}') as { predictionId: string })).toEqual([
      expect.objectContaining({ predictionId: job }),
    ]);
    counting.destroy();
  });
});
