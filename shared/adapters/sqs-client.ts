import type { SQSClient } from '@aws-sdk/client-sqs';

/**
 * The SQS SDK, imported at its first use rather than at a function's cold start, as S3's is
 * (s3-client.ts): most of the functions' requests never send a message (bench §4).
 */
const sqsSdk = () => import('@aws-sdk/client-sqs');

let sqsClient: Promise<SQSClient> | undefined;

/** The process's SQS client, with its production defaults; its endpoint comes from `AWS_ENDPOINT_URL_SQS` (aws-clients.ts). */
export const sqs = (): Promise<SQSClient> =>
  // Requests go to the configured (regional or emulator) endpoint, not to the host in a queue URL.
  (sqsClient ??= sqsSdk().then(({ SQSClient }) => new SQSClient({ useQueueUrlAsEndpoint: false })));

/** `given` (a test's, an emulator's), or else the process's own client. */
const sqsOr = (given: SQSClient | undefined) => (): Promise<SQSClient> =>
  given === undefined ? sqs() : Promise.resolve(given);

/**
 * What an adapter calls before each request: the SDK's module (its commands) and `given` or else
 * the process's own client, both loaded at the first call and kept.
 */
export const sqsSdkAndClient = (given?: SQSClient) => {
  const client = sqsOr(given);
  return () => Promise.all([sqsSdk(), client()]);
};
