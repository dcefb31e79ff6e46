import { ChangeMessageVisibilityCommand, DeleteMessageCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { setTimeout as sleep } from 'node:timers/promises';
import { dispatchMessage, type DispatchMessage } from '../shared/workflow/messages.ts';
import type { ModelClient } from './model-client.ts';

/** What becomes of a job message once its handler is done. */
export type Disposition =
  | { readonly kind: 'delete' }
  /** Back to the queue after this long (0: at once, for another worker). */
  | { readonly kind: 'return'; readonly afterSeconds: number };

export interface PollerOptions {
  readonly sqs: SQSClient;
  readonly queueUrl: string;
  readonly modelServer: ModelClient;
  /** Seconds a received message stays hidden: the worker's lease, renewed while it runs. */
  readonly leaseSeconds: number;
  readonly signal: AbortSignal;
  readonly log: (message: string, fields?: Record<string, unknown>) => void;
  readonly handle: (message: DispatchMessage, renewLease: () => Promise<void>) => Promise<Disposition>;
}

/**
 * Waits for the model server to be READY. A fresh worker that finds it BUSY is looking at an
 * orphan (its predecessor died mid-run; that prediction's message comes back when the lease
 * runs out, and is run again), so it cancels it rather than wait for work nobody will collect.
 */
const waitUntilReady = async (options: PollerOptions, cancelOrphans: boolean): Promise<void> => {
  let said = false;
  while (!options.signal.aborted) {
    const health = await options.modelServer.health().catch(() => ({ status: 'UNREACHABLE' as const, prediction_id: null }));
    if (health.status === 'READY') return;
    if (health.status === 'SETUP_FAILED') throw new Error('the model server failed its setup');
    if (cancelOrphans && health.status === 'BUSY' && health.prediction_id) {
      options.log('canceling an orphaned run on the model server', { predictionId: health.prediction_id });
      await options.modelServer.cancel(health.prediction_id).catch(() => undefined);
    }
    if (!said) options.log('waiting for the model server', { health: health.status });
    said = true;
    await sleep(250, undefined, { signal: options.signal }).catch(() => undefined);
  }
};

/**
 * Takes one job at a time (one model server, one GPU): wait for the model to be ready, receive
 * (the message hidden for one lease), run, then delete or return the message. A job that throws
 * leaves its message to come back when the lease runs out, as a dead worker's would.
 */
export const pollQueue = async (options: PollerOptions): Promise<void> => {
  let first = true;
  while (!options.signal.aborted) {
    await waitUntilReady(options, first);
    first = false;
    if (options.signal.aborted) return;
    let received;
    try {
      received = await options.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: options.queueUrl,
          MaxNumberOfMessages: 1,
          WaitTimeSeconds: 20,
          VisibilityTimeout: options.leaseSeconds,
        }),
        { abortSignal: options.signal },
      );
    } catch (error) {
      if (options.signal.aborted) return;
      options.log('receive failed; retrying', { error: String(error) });
      await sleep(1000);
      continue;
    }
    for (const message of received.Messages ?? []) {
      const receipt = message.ReceiptHandle ?? '';
      const hideFor = (seconds: number) =>
        options.sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: options.queueUrl, ReceiptHandle: receipt, VisibilityTimeout: seconds }));
      const remove = () => options.sqs.send(new DeleteMessageCommand({ QueueUrl: options.queueUrl, ReceiptHandle: receipt }));
      let body: unknown = null;
      try {
        body = JSON.parse(message.Body ?? 'null');
      } catch {
        // Not JSON: refused below like any message that is not a dispatch message.
      }
      const parsed = dispatchMessage.safeParse(body);
      if (!parsed.success) {
        options.log('dropping a message that is not a dispatch message', { messageId: message.MessageId });
        await remove();
        continue;
      }
      try {
        const disposition = await options.handle(parsed.data, async () => {
          await hideFor(options.leaseSeconds);
        });
        options.log('job done', { predictionId: parsed.data.predictionId, disposition });
        if (disposition.kind === 'delete') await remove();
        else await hideFor(disposition.afterSeconds);
      } catch (error) {
        options.log('job failed; its message comes back when the lease runs out', { predictionId: parsed.data.predictionId, error: String(error) });
      }
    }
  }
};
