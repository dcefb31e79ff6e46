import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * SDK clients with their production defaults. Endpoints come from the standard
 * `AWS_ENDPOINT_URL_<SERVICE>` variables, which is how the local runtime points the very same
 * code at its emulators: there is no `if (local)` anywhere. DynamoDB's is loaded with every
 * function, which reads the table on every request; S3's, SQS's and Step Functions' are apart
 * (s3-client.ts, sqs-client.ts, sfn-client.ts, on lazy-sdk.ts), loaded at their first use.
 */
let documentClient: DynamoDBDocumentClient | undefined;

export const dynamo = (): DynamoDBDocumentClient =>
  (documentClient ??= DynamoDBDocumentClient.from(new DynamoDBClient({}), {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  }));
