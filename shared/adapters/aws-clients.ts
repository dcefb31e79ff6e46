import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SFNClient } from '@aws-sdk/client-sfn';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * SDK clients with their production defaults. Endpoints come from the standard
 * `AWS_ENDPOINT_URL_<SERVICE>` variables, which is how the local runtime points the very same
 * code at its emulators: there is no `if (local)` anywhere. S3's is apart (s3-client.ts), loaded at
 * its first use: every function imports this module, and few of their requests reach S3.
 */
let documentClient: DynamoDBDocumentClient | undefined;
let sfnClient: SFNClient | undefined;
let sqsClient: SQSClient | undefined;

export const dynamo = (): DynamoDBDocumentClient =>
  (documentClient ??= DynamoDBDocumentClient.from(new DynamoDBClient({}), {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  }));

export const stepFunctions = (): SFNClient => (sfnClient ??= new SFNClient({}));

// Requests go to the configured (regional or emulator) endpoint, not to the host in a queue URL.
export const sqs = (): SQSClient => (sqsClient ??= new SQSClient({ useQueueUrlAsEndpoint: false }));
