import { lazySdk } from './lazy-sdk.ts';

/** The SQS SDK, loaded at its first use: most of the functions' requests never send a message (bench §4). */
const sqsSdk = lazySdk(
  () => import('@aws-sdk/client-sqs'),
  // Requests go to the configured (regional or emulator) endpoint, not to the host in a queue URL.
  ({ SQSClient }) => new SQSClient({ useQueueUrlAsEndpoint: false }),
);

/** The process's SQS client. */
export const sqs = sqsSdk.client;
export const sqsSdkAndClient = sqsSdk.sdkAndClient;
