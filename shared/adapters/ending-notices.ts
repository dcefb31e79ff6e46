import { randomBytes } from 'node:crypto';
import type { Message, SQSClient } from '@aws-sdk/client-sqs';
import * as z from '../zod-mini.ts';
import { predictionIdSchema, type PredictionId } from '../domain/ids.ts';
import { isTerminal, type TerminalPrediction } from '../domain/prediction.ts';
import {
  INBOX_KEEPS_BYTES,
  NOTICE_CARRIES_BYTES,
  type EndingInbox,
  type EndingInboxes,
  type EndingTeller,
} from '../ports/ending-notices.ts';
import { sqsSdkAndClient } from './sqs-client.ts';
import { fromItem, toItem } from './prediction-item.ts';
import { WAITER_QUEUE_NAMES } from './waiter-queue-names.ts';

/**
 * Ending notices over SQS, as AWS's temporary-queue pattern has it: each waiting process makes a
 * queue of its own (WAITER_QUEUE_NAMES), whose URL the prediction records; its ender sends the
 * notice there. The same code runs on AWS and, through the SDK's endpoints, on fauxqs locally.
 */

/** Reports what went wrong where nothing may fail for it: a notice lost costs a wait latency, not correctness. */
export type ReportFailure = (message: string, fields: Record<string, unknown>) => void;

/** A notice: the ended prediction's id, and its item as the table has it when that is small enough (made at the first read). */
const notice = z.lazy(() =>
  z.object({ predictionId: predictionIdSchema, item: z.optional(z.record(z.string(), z.unknown())) }),
);

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
  /** Of what notices carried, how much is kept for later waits (INBOX_KEEPS_BYTES unless told). */
  readonly keepsBytes?: number;
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
  /** What the notice carried; null once forgotten. */
  ended: TerminalPrediction | null;
  /** Its size, as the budget counts it (the message's body). */
  bytes: number;
}

/**
 * This process's inbox: its queue is made at the first `address()`, and made anew when it is
 * found gone. One receive loop serves every wait of the process, long-polling only while a wait
 * is pending; a notice is kept NOTICE_SECONDS, for a wait that starts after it came, and what it
 * carried as long as the latest notices' fit in `keepsBytes`.
 */
export const sqsEndingInbox = (options: SqsInboxOptions): EndingInbox => {
  const sdk = sqsSdkAndClient(options.client);
  const keepsBytes = options.keepsBytes ?? INBOX_KEEPS_BYTES;
  let queue: Promise<string> | null = null;
  // In the order the notices came (a repeated one moves to the end): the oldest first.
  const noticed = new Map<PredictionId, Notice>();
  let keptBytes = 0;
  const waits = new Map<PredictionId, Set<Wait>>();
  let listening = false;

  const remember = (id: PredictionId, ended: TerminalPrediction | null, bytes: number) => {
    const previous = noticed.get(id);
    if (previous) {
      keptBytes -= previous.bytes;
      noticed.delete(id);
    }
    const kept = ended === null ? 0 : bytes;
    noticed.set(id, { atMs: options.now(), ended, bytes: kept });
    keptBytes += kept;
  };
  /** Drops the notices older than NOTICE_SECONDS, then what the oldest carried while over the budget. */
  const forget = () => {
    const oldestMs = options.now() - NOTICE_SECONDS * 1000;
    for (const [id, notice] of noticed) {
      if (notice.atMs >= oldestMs) break;
      noticed.delete(id);
      keptBytes -= notice.bytes;
    }
    for (const notice of noticed.values()) {
      if (keptBytes <= keepsBytes) break;
      keptBytes -= notice.bytes;
      notice.ended = null;
      notice.bytes = 0;
    }
  };

  const makeQueue = async (): Promise<string> => {
    const name = WAITER_QUEUE_NAMES.nameOf(options.namePrefix, options.now(), randomBytes(6).toString('hex'));
    const [{ CreateQueueCommand }, sqs] = await sdk();
    const { QueueUrl } = await sqs.send(
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
    for (const message of messages) {
      const parsed = notice.safeParse(parseJson(message.Body));
      if (!parsed.success) {
        options.report('a waiter queue held a message that is not an ending notice', { body: message.Body });
        continue;
      }
      const { predictionId, item } = parsed.data;
      const ended = carried(predictionId, item);
      remember(predictionId, ended, Buffer.byteLength(message.Body ?? ''));
      for (const wait of waits.get(predictionId) ?? []) wait.wake(ended);
    }
    forget();
  };

  const receiveOnce = async (): Promise<void> => {
    const made = address();
    const url = await made;
    const [{ ReceiveMessageCommand, DeleteMessageBatchCommand, QueueDoesNotExist }, sqs] = await sdk();
    try {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: POLL_SECONDS }),
      );
      if (Messages.length === 0) return;
      deliver(Messages);
      await sqs.send(
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
        forget();
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
export const sqsEndingTeller = (report: ReportFailure, given?: SQSClient): EndingTeller => {
  const sdk = sqsSdkAndClient(given);
  return {
    async tell(address, ended) {
      try {
        const [{ SendMessageCommand }, sqs] = await sdk();
        await sqs.send(new SendMessageCommand({ QueueUrl: address, MessageBody: noticeBody(ended) }));
      } catch (error) {
        report('the waiter could not be told that its prediction ended', {
          predictionId: ended.id,
          address,
          error: String(error),
        });
      }
    },
  };
};

/** The deployment's waiter queues, found by their names' prefix (ListQueues, a page of up to 1,000 at a time). */
export const sqsEndingInboxes = (namePrefix: string, given?: SQSClient): EndingInboxes => {
  const sdk = sqsSdkAndClient(given);
  return {
    async removeMadeBefore(epochMs) {
      const [{ ListQueuesCommand, DeleteQueueCommand, QueueDoesNotExist }, sqs] = await sdk();
      let removed = 0;
      let nextToken: string | undefined;
      do {
        const page = await sqs.send(
          new ListQueuesCommand({ QueueNamePrefix: namePrefix, MaxResults: 1000, NextToken: nextToken }),
        );
        for (const url of page.QueueUrls ?? []) {
          const madeAtMs = WAITER_QUEUE_NAMES.madeAtOf(namePrefix, WAITER_QUEUE_NAMES.nameOfUrl(url));
          if (madeAtMs === null || madeAtMs >= epochMs) continue;
          try {
            await sqs.send(new DeleteQueueCommand({ QueueUrl: url }));
            removed++;
          } catch (error) {
            if (!(error instanceof QueueDoesNotExist)) throw error;
          }
        }
        nextToken = page.NextToken;
      } while (nextToken !== undefined);
      return removed;
    },
  };
};
