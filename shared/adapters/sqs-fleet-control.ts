import type { SQSClient } from '@aws-sdk/client-sqs';
import { sqsSdkAndClient } from './sqs-client.ts';
import type { JobQueues } from '../ports/fleet-control.ts';

/** Model queues on SQS: the jobs waiting are the queue's visible messages, as SQS counts them. */
export const sqsJobQueues = (given?: SQSClient): JobQueues => {
  const sdk = sqsSdkAndClient(given);
  return {
    async waitingJobs(queueUrl) {
      const [{ GetQueueAttributesCommand }, sqs] = await sdk();
      const { Attributes } = await sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages'] }),
      );
      const waiting = Number(Attributes?.ApproximateNumberOfMessages);
      if (!Number.isInteger(waiting) || waiting < 0) throw new Error(`SQS gave no message count for ${queueUrl}`);
      return waiting;
    },
  };
};
