import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';

/**
 * How many times SQS has handed this message to a consumer, this time included: its attempt. The
 * one rule every SQS consumer of prognoz counts attempts by (a missing or unreadable count is 1).
 */
export const attemptOf = (record: Pick<SQSRecord, 'attributes'>): number =>
  Math.max(1, Number(record.attributes.ApproximateReceiveCount) || 1);

/**
 * An SQS batch through Powertools' batch processing: each record handled in turn, those whose
 * handler threw reported back (partial batch failures), so SQS returns only them. A batch that
 * failed whole is answered the same way, not thrown: SQS returns every message either way, and
 * the function does not count as failed for a receiver that was down.
 */
export const processSqsBatch = (
  event: SQSEvent,
  handle: (record: SQSRecord, attempt: number) => Promise<void>,
): Promise<SQSBatchResponse> =>
  processPartialResponse(
    event,
    (record: SQSRecord) => handle(record, attemptOf(record)),
    new BatchProcessor(EventType.SQS),
    {
      throwOnFullBatchFailure: false,
      processInParallel: false,
    },
  );
