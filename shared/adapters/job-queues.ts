import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { sqs } from './aws-clients.ts';
import type { JobQueues } from '../ports/fleet-control.ts';

/** Model queues on SQS: the jobs waiting are the queue's visible messages, as SQS counts them. */
export const sqsJobQueues = (client: SQSClient = sqs()): JobQueues => ({
  async waitingJobs(queueUrl) {
    const { Attributes } = await client.send(
      new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages'] }),
    );
    const waiting = Number(Attributes?.ApproximateNumberOfMessages);
    if (!Number.isInteger(waiting) || waiting < 0) throw new Error(`SQS gave no message count for ${queueUrl}`);
    return waiting;
  },
});
