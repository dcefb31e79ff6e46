import { DeleteMessageBatchCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { setTimeout as sleep } from 'node:timers/promises';
import { invokeLocal, type LocalFunction } from './lambda-host.ts';
import { LOCAL_REGION } from './paths.ts';

export interface LocalEventSource {
  readonly queueUrl: string;
  readonly queueArn: string;
  readonly fn: LocalFunction;
  readonly batchSize: number;
  readonly reportBatchItemFailures: boolean;
}

/**
 * What Lambda's SQS event source mapping does: poll, invoke the function with a batch, delete
 * what succeeded. Failed messages stay, come back after their visibility timeout, and the
 * queue's own redrive policy dead-letters them, exactly as on AWS.
 */
export const pollEventSource = async (
  source: LocalEventSource,
  sqs: SQSClient,
  signal: AbortSignal,
  log: (line: string) => void,
): Promise<void> => {
  while (!signal.aborted) {
    try {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: source.queueUrl,
          MaxNumberOfMessages: Math.min(10, source.batchSize),
          // Long polling, as Lambda's pollers do: an idle queue costs no CPU, a message is taken at once.
          WaitTimeSeconds: 20,
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        }),
        { abortSignal: signal },
      );
      if (Messages.length === 0) continue;
      const event: SQSEvent = {
        Records: Messages.map((message) => ({
          messageId: message.MessageId ?? '',
          receiptHandle: message.ReceiptHandle ?? '',
          body: message.Body ?? '',
          attributes: message.Attributes as SQSEvent['Records'][number]['attributes'],
          messageAttributes: {},
          md5OfBody: message.MD5OfBody ?? '',
          eventSource: 'aws:sqs',
          eventSourceARN: source.queueArn,
          awsRegion: LOCAL_REGION,
        })),
      };
      let failed = new Set(Messages.map((message) => message.MessageId));
      try {
        const response = (await invokeLocal(source.fn, event)) as SQSBatchResponse | null;
        failed = source.reportBatchItemFailures
          ? new Set((response?.batchItemFailures ?? []).map((item) => item.itemIdentifier))
          : new Set();
      } catch (error) {
        log(`[event source ${source.fn.entry}] the function failed; the whole batch comes back: ${String(error)}`);
      }
      const done = Messages.filter((message) => !failed.has(message.MessageId));
      if (done.length > 0) {
        await sqs.send(
          new DeleteMessageBatchCommand({
            QueueUrl: source.queueUrl,
            Entries: done.map((message, i) => ({ Id: String(i), ReceiptHandle: message.ReceiptHandle ?? '' })),
          }),
        );
      }
    } catch (error) {
      if (signal.aborted) return;
      log(`[event source ${source.fn.entry}] ${String(error)}`);
      await sleep(1000);
    }
  }
};
