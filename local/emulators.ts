import { closeServer } from './close-server.ts';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { startCognitoEmulator } from './cognito-emulator.ts';
import { startDynamoDbLocal } from './dynamodb-local.ts';
import { keyAttributesOf } from './dynamodb-item-keys.ts';
import { dynamoRequestOrder } from './dynamodb-request-order.ts';
import { CAPACITY_OPERATIONS, localMeter, sqsAnswerRead } from './meter.ts';
import { startMeteredFauxqs } from './metered-fauxqs.ts';
import { LOCAL_REGION } from './paths.ts';
import { startServiceProxy } from './service-proxy.ts';
import { WORKER_ENV } from '../shared/config/worker.ts';

export interface Emulators {
  readonly dynamoEndpoint: string;
  /** fauxqs itself, unmetered (the tests peek at queues there). */
  readonly fauxqsAddress: string;
  /** What the SDK reads: region, credentials, and every service's endpoint but Step Functions'. */
  readonly awsEnv: Readonly<Record<string, string>>;
  stop(): Promise<void>;
}

/**
 * DynamoDB Local behind a proxy that meters the calls and orders those on the same items
 * (local/dynamodb-request-order.ts); fauxqs for SQS and S3, metered inside its own process
 * (local/metered-fauxqs.ts); moto for Cognito.
 */
export const startEmulators = async (options: { readonly dataDir?: string }): Promise<Emulators> => {
  const cleanups: (() => Promise<unknown>)[] = [];
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  };
  try {
    const dynamoLocal = await startDynamoDbLocal(options.dataDir ? { dataDir: options.dataDir } : {});
    cleanups.push(() => dynamoLocal.stop());
    // Reads key schemas from DynamoDB Local itself, unmetered: the service never asks this.
    const direct = new DynamoDBClient({
      endpoint: dynamoLocal.endpoint,
      region: LOCAL_REGION,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    cleanups.push(() => Promise.resolve(direct.destroy()));
    const dynamoProxy = await startServiceProxy(dynamoLocal.endpoint, {
      order: dynamoRequestOrder(keyAttributesReader(direct)),
      prepare: askForConsumedCapacity,
      observe: (operation, request, response, status) =>
        localMeter.dynamoCall(operation, parseJson(request), status === 200 ? parseJson(response) : {}),
    });
    cleanups.push(() => closeServer(dynamoProxy.server));
    const fauxqs = await startMeteredFauxqs({
      region: LOCAL_REGION,
      wantsBody: sqsAnswerRead,
      observeSqs: (action, response) => localMeter.sqsCall(action, parseJson(response)),
      observeS3: (method, path) => localMeter.s3Call(s3Operation(method, path)),
    });
    cleanups.push(() => fauxqs.stop());
    const cognito = await startCognitoEmulator();
    cleanups.push(() => cognito.stop());
    return {
      dynamoEndpoint: dynamoProxy.endpoint,
      fauxqsAddress: fauxqs.address,
      awsEnv: {
        AWS_REGION: LOCAL_REGION,
        AWS_ACCESS_KEY_ID: 'local',
        AWS_SECRET_ACCESS_KEY: 'local',
        AWS_ENDPOINT_URL_DYNAMODB: dynamoProxy.endpoint,
        AWS_ENDPOINT_URL_SQS: fauxqs.sqsEndpoint,
        AWS_ENDPOINT_URL_S3: fauxqs.s3Endpoint,
        AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER: cognito.endpoint,
        // One host and port serves every bucket: the workers address buckets by path.
        [WORKER_ENV.s3PathStyle]: 'true',
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
};

/** A table's key attributes, as DescribeTable tells them. */
const keyAttributesReader = (client: DynamoDBClient) => async (table: string) => {
  const { Table } = await client.send(new DescribeTableCommand({ TableName: table }));
  return keyAttributesOf(table, Table?.KeySchema ?? []);
};

/** S3's REST calls named as the API names them, for the meter. */
const s3Operation = (method: string, path: string): string => {
  const inBucket = path.split('?')[0]?.split('/').filter(Boolean).length ?? 0;
  const object = inBucket > 1;
  switch (method) {
    case 'PUT':
      return object ? 'PutObject' : 'CreateBucket';
    case 'GET':
      return object ? 'GetObject' : 'ListObjects';
    case 'HEAD':
      return object ? 'HeadObject' : 'HeadBucket';
    case 'DELETE':
      return object ? 'DeleteObject' : 'DeleteBucket';
    default:
      return `${method} ${object ? 'object' : 'bucket'}`;
  }
};

const parseJson = (body: Buffer): Record<string, unknown> => {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
};

/**
 * Every DynamoDB call asks for its consumed capacity, which the meter reads from the answer; a
 * write transaction for its indexes too, as DynamoDB Local tells which indexes it wrote.
 */
const askForConsumedCapacity = (operation: string, body: Buffer): Buffer => {
  if (!CAPACITY_OPERATIONS.has(operation)) return body;
  const request = parseJson(body);
  if (request.ReturnConsumedCapacity !== undefined) return body;
  const detail = operation === 'TransactWriteItems' ? 'INDEXES' : 'TOTAL';
  return Buffer.from(JSON.stringify({ ...request, ReturnConsumedCapacity: detail }));
};
