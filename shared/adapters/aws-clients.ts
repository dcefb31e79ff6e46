import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SFNClient } from '@aws-sdk/client-sfn';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * SDK clients with their production defaults. Endpoints come from the standard
 * `AWS_ENDPOINT_URL_<SERVICE>` variables, which is how the local runtime points the very same
 * code at its emulators: there is no `if (local)` anywhere.
 */
let documentClient: DynamoDBDocumentClient | undefined;
let sfnClient: SFNClient | undefined;
let sqsClient: SQSClient | undefined;
let s3Client: S3Client | undefined;

export const dynamo = (): DynamoDBDocumentClient =>
  (documentClient ??= DynamoDBDocumentClient.from(new DynamoDBClient({}), {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  }));

export const stepFunctions = (): SFNClient => (sfnClient ??= new SFNClient({}));

// Requests go to the configured (regional or emulator) endpoint, not to the host in a queue URL.
export const sqs = (): SQSClient => (sqsClient ??= new SQSClient({ useQueueUrlAsEndpoint: false }));

// An emulator on one host and port (the local runtime's) is addressed by path, not by bucket host name.
export const s3 = (): S3Client =>
  (s3Client ??= new S3Client({ forcePathStyle: process.env.PROGNOZ_S3_PATH_STYLE === 'true' }));
