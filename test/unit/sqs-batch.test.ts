import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { attemptOf, processSqsBatch } from '../../functions/sqs-batch.ts';

const record = (messageId: string, receives?: string): SQSRecord => ({
  messageId,
  receiptHandle: `handle-${messageId}`,
  body: JSON.stringify({ messageId }),
  attributes: {
    ApproximateReceiveCount: receives as string,
    SentTimestamp: '0',
    SenderId: 'sender',
    ApproximateFirstReceiveTimestamp: '0',
  },
  messageAttributes: {},
  md5OfBody: '',
  eventSource: 'aws:sqs',
  eventSourceARN: 'arn:aws:sqs:eu-west-1:123456789012:queue',
  awsRegion: 'eu-west-1',
});
const batch = (...records: SQSRecord[]): SQSEvent => ({ Records: records });

describe("an SQS consumer's batch (Powertools' batch processing)", () => {
  it('hands each record its attempt, in order, and reports back only those whose handler threw', async () => {
    const seen: [string, number][] = [];
    const answer = await processSqsBatch(
      batch(record('a', '1'), record('b', '3'), record('c', '2')),
      (item, attempt) => {
        seen.push([item.messageId, attempt]);
        return item.messageId === 'b' ? Promise.reject(new Error('receiver down')) : Promise.resolve();
      },
    );
    expect(seen).toEqual([
      ['a', 1],
      ['b', 3],
      ['c', 2],
    ]);
    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: 'b' }] });
  });

  it('answers a batch that failed whole with every record, rather than failing the function', async () => {
    const answer = await processSqsBatch(batch(record('a'), record('b')), () => Promise.reject(new Error('down')));
    expect(answer.batchItemFailures.map((failure) => failure.itemIdentifier)).toEqual(['a', 'b']);
  });

  it('counts an attempt as SQS does, a missing or unreadable count as the first', () => {
    expect(attemptOf(record('a', '4'))).toBe(4);
    expect(attemptOf(record('a'))).toBe(1);
    expect(attemptOf(record('a', 'soon'))).toBe(1);
  });
});
