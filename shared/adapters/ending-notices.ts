import { randomBytes } from 'node:crypto';
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  DeleteQueueCommand,
  ListQueuesCommand,
  QueueDoesNotExist,
  ReceiveMessageCommand,
  SendMessageCommand,
  type Message,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import * as z from 'zod';
import { predictionIdSchema, type PredictionId } from '../domain/ids.ts';
import { isTerminal, type TerminalPrediction } from '../domain/prediction.ts';
import {
  NOTICE_CARRIES_BYTES,
  type EndingInbox,
  type EndingInboxes,
  type EndingTeller,
} from '../ports/ending-notices.ts';
import { sqs } from './aws-clients.ts';
import { fromItem, toItem } from './prediction-item.ts';
import { WAITER_QUEUE_NAMES } from './waiter-queue-names.ts';

/**
 * Ending notices over SQS, as AWS's temporary-queue pattern has it: each waiting process makes a
 * queue of its own (WAITER_QUEUE_NAMES), whose URL the prediction records; its ender sends the
 * notice there. The same code runs on AWS and, through the SDK's endpoints, on fauxqs locally.
 */

/** Reports what went wrong where nothing may fail for it: a notice lost costs a wait latency, not correctness. */
export type ReportFailure = (message: string, fields: Record<string, unknown>) => void;

/** A notice: the ended prediction's id, and its item as the table has it when that is small enough. */
const notice = z.object({ predictionId: predictionIdSchema, item: z.record(z.string(), z.unknown()).optional() });

const noticeBody = (ended: TerminalPrediction): string => {
  const item = JSON.stringify(toItem(ended));
  return Buffer.byteLength(item) <= NOTICE_CARRIES_BYTES
    ? `{"predictionId":${JSON.stringify(ended.id)},"item":${item}}`
    : JSON.stringify({ predictionId: ended.id });
};

/** The prediction a notice carries; null when it carries none, or none that is this one ended. */
const carried = (id: PredictionId, item: Record<string, unknown> | undefined): TerminalPrediction | null => {
  if (item === undefined) return null;
  try {
    const prediction = fromItem(item);
    return prediction.id === id && isTerminal(prediction) ? prediction : null;
  } catch {
    return null;
  }
};

/** A notice outlives any wait it could end: SQS's shortest retention. */
const NOTICE_SECONDS = 60;
/** SQS's longest long poll: one request per wait, most often. */
const POLL_SECONDS = 20;
/** After a failed receive, the pause before the next: a broken queue is not hammered. */
const RETRY_MS = 1000;

export interface SqsInboxOptions {
  /** The waiter queues' prefix (WAITER_QUEUE_NAMES.prefixOf). */
  readonly namePrefix: string;
  /** Epoch ms: the time the queue's name records, and the age of the notices kept. */
  readonly now: () => number;
  readonly report: ReportFailure;
  readonly client?: SQSClient;
}

const parseJson = (text: string | undefined): unknown => {
  try {
    return JSON.parse(text ?? 'null');
  } catch {
    return null;
  }
};

interface Wait {
  readonly wake: (ended: TerminalPrediction | null) => void;
}

interface Notice {
  readonly atMs: number;
  readonly ended: TerminalPrediction | null;
}

/**
 * This process's inbox: its queue is made at the first `address()`, and made anew when it is
 * found gone. One receive loop serves every wait of the process, long-polling only while a wait
 * is pending; a notice is kept NOTICE_SECONDS, for a wait that starts after it came.
 */
export const sqsEndingInbox = (options: SqsInboxOptions): EndingInbox => {
  const client = options.client ?? sqs();
  let queue: Promise<string> | null = null;
  const noticed = new Map<PredictionId, Notice>();
  const waits = new Map<PredictionId, Set<Wait>>();
  let listening = false;

  const makeQueue = async (): Promise<string> => {
    const name = WAITER_QUEUE_NAMES.nameOf(options.namePrefix, options.now(), randomBytes(6).toString('hex'));
    const { QueueUrl } = await client.send(
      new CreateQueueCommand({ QueueName: name, Attributes: { MessageRetentionPeriod: String(NOTICE_SECONDS) } }),
    );
    if (!QueueUrl) throw new Error(`SQS gave no URL for the waiter queue ${name}`);
    return QueueUrl;
  };
  const address = (): Promise<string> => {
    const made = (queue ??= makeQueue());
    // A queue that could not be made is tried again at the next call.
    made.catch(() => {
      if (queue === made) queue = null;
    });
    return made;
  };

  const deliver = (messages: readonly Message[]) => {
    const nowMs = options.now();
    for (const [id, { atMs }] of noticed) if (atMs < nowMs - NOTICE_SECONDS * 1000) noticed.delete(id);
    for (const message of messages) {
      const parsed = notice.safeParse(parseJson(message.Body));
      if (!parsed.success) {
        options.report('a waiter queue held a message that is not an ending notice', { body: message.Body });
        continue;
      }
      const { predictionId, item } = parsed.data;
      const ended = carried(predictionId, item);
      noticed.set(predictionId, { atMs: nowMs, ended });
      for (const wait of waits.get(predictionId) ?? []) wait.wake(ended);
    }
  };

  const receiveOnce = async (): Promise<void> => {
    const made = address();
    const url = await made;
    try {
      const { Messages = [] } = await client.send(
        new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: POLL_SECONDS }),
      );
      if (Messages.length === 0) return;
      deliver(Messages);
      await client.send(
        new DeleteMessageBatchCommand({
          QueueUrl: url,
          Entries: Messages.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle })),
        }),
      );
    } catch (error) {
      // Removed by the sweeper (or by hand): the next round makes a new one.
      if (!(error instanceof QueueDoesNotExist)) throw error;
      if (queue === made) queue = null;
    }
  };

  const listen = async (): Promise<void> => {
    listening = true;
    while (waits.size > 0) {
      try {
        await receiveOnce();
      } catch (error) {
        options.report('the waiter queue could not be read', { error: String(error) });
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    }
    listening = false;
  };

  return {
    address,
    waitFor: (id, untilMs, signal) =>
      new Promise<TerminalPrediction | null>((resolve) => {
        const leftMs = untilMs - options.now();
        const known = noticed.get(id);
        if (known !== undefined) return resolve(known.ended);
        if (signal?.aborted || leftMs <= 0) return resolve(null);
        const finish = (ended: TerminalPrediction | null) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', stop);
          const forId = waits.get(id);
          forId?.delete(wait);
          if (forId?.size === 0) waits.delete(id);
          resolve(ended);
        };
        const stop = () => finish(null);
        const wait: Wait = { wake: finish };
        const timer = setTimeout(stop, leftMs);
        signal?.addEventListener('abort', stop, { once: true });
        waits.set(id, (waits.get(id) ?? new Set()).add(wait));
        if (!listening) void listen();
      }),
  };
};

/** The enders' side: one SendMessage to the address the prediction recorded. */
export const sqsEndingTeller = (report: ReportFailure, client: SQSClient = sqs()): EndingTeller => ({
  async tell(address, ended) {
    try {
      await client.send(new SendMessageCommand({ QueueUrl: address, MessageBody: noticeBody(ended) }));
    } catch (error) {
      report('the waiter could not be told that its prediction ended', {
        predictionId: ended.id,
        address,
        error: String(error),
      });
    }
  },
});

/** The deployment's waiter queues, found by their names' prefix (ListQueues, a page of up to 1,000 at a time). */
export const sqsEndingInboxes = (namePrefix: string, client: SQSClient = sqs()): EndingInboxes => ({
  async removeMadeBefore(epochMs) {
    let removed = 0;
    let nextToken: string | undefined;
    do {
      const page = await client.send(
        new ListQueuesCommand({ QueueNamePrefix: namePrefix, MaxResults: 1000, NextToken: nextToken }),
      );
      for (const url of page.QueueUrls ?? []) {
        const madeAtMs = WAITER_QUEUE_NAMES.madeAtOf(namePrefix, WAITER_QUEUE_NAMES.nameOfUrl(url));
        if (madeAtMs === null || madeAtMs >= epochMs) continue;
        try {
          await client.send(new DeleteQueueCommand({ QueueUrl: url }));
          removed++;
        } catch (error) {
          if (!(error instanceof QueueDoesNotExist)) throw error;
        }
      }
      nextToken = page.NextToken;
    } while (nextToken !== undefined);
    return removed;
  },
});
