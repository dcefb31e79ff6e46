import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { s3OutputReader } from '../shared/adapters/output-store-reader.ts';
import type { OutputReader } from '../shared/ports/output-store.ts';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { awsFleetScaling } from '../shared/adapters/fleet-scaling.ts';
import { fleetClusterPrefixOf } from '../shared/fleet-config.ts';
import type { FleetScaling } from '../shared/ports/fleet-scaling.ts';
import { localDataDir, runningLocalRuntime } from './local-runtime.ts';

export interface Target {
  readonly tableName: string;
  readonly client: DynamoDBDocumentClient;
  readonly description: string;
  /** The owners' user pool, where it is known (`owners` commands need it). */
  readonly ownerPool: { readonly poolId: string; readonly client: CognitoIdentityProviderClient } | null;
  /** The models' fleets, where they are known (`deployments` commands need them). */
  readonly fleets: { readonly scaling: FleetScaling; readonly clusterPrefix: string } | null;
  /** The outputs bucket, where it is known (a large input or output is read from it: `models examples add`). */
  readonly outputs: OutputReader | null;
}

const documentClient = (config: DynamoDBClientConfig) =>
  DynamoDBDocumentClient.from(new DynamoDBClient(config), { marshallOptions: { removeUndefinedValues: true } });

const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

/**
 * The table to administer: a deployed stack's (`--stack NAME`, read from its outputs with the
 * usual AWS credentials), a table named outright (`--table NAME`, with `--user-pool ID` for the
 * owners' pool and `--cluster-prefix PREFIX` for the fleets), or else that of the local runtime
 * running on the data folder (`--data-dir`, PROGNOZ_DATA_DIR, or `npm start`'s default).
 */
export const resolveTarget = async (options: {
  stack?: string;
  table?: string;
  userPool?: string;
  clusterPrefix?: string;
  bucket?: string;
  dataDir?: string;
}): Promise<Target> => {
  const namedPool = options.userPool
    ? { poolId: options.userPool, client: new CognitoIdentityProviderClient({}) }
    : null;
  if (options.table)
    return {
      tableName: options.table,
      client: documentClient({}),
      description: `table ${options.table}`,
      ownerPool: namedPool,
      fleets: options.clusterPrefix ? { scaling: awsFleetScaling(), clusterPrefix: options.clusterPrefix } : null,
      // An S3 endpoint of its own (an emulator's: AWS_ENDPOINT_URL_S3) serves its buckets by path.
      outputs: options.bucket
        ? s3OutputReader(
            options.bucket,
            new S3Client({ forcePathStyle: process.env.AWS_ENDPOINT_URL_S3 !== undefined }),
          )
        : null,
    };
  if (options.stack) {
    const { Stacks = [] } = await new CloudFormationClient({}).send(
      new DescribeStacksCommand({ StackName: options.stack }),
    );
    const output = (key: string) => Stacks[0]?.Outputs?.find((candidate) => candidate.OutputKey === key)?.OutputValue;
    const tableName = output('TableName');
    if (!tableName) throw new Error(`stack ${options.stack} has no TableName output`);
    const poolId = output('OwnerUserPoolId');
    const bucket = output('BucketName');
    return {
      tableName,
      client: documentClient({}),
      description: `stack ${options.stack}`,
      ownerPool: namedPool ?? (poolId ? { poolId, client: new CognitoIdentityProviderClient({}) } : null),
      fleets: { scaling: awsFleetScaling(), clusterPrefix: fleetClusterPrefixOf(options.stack) },
      outputs: bucket ? s3OutputReader(bucket) : null,
    };
  }
  const dataDir = localDataDir(options.dataDir);
  const local = runningLocalRuntime(dataDir);
  if (local === null)
    throw new Error(
      `no local runtime is running on the data folder ${dataDir} (start one with \`npm start\`, or give --data-dir, --stack or --table)`,
    );
  return {
    fleets: {
      scaling: awsFleetScaling({
        endpoint: local.fleetsEndpoint,
        region: local.region,
        credentials: LOCAL_CREDENTIALS,
      }),
      clusterPrefix: local.fleetClusterPrefix,
    },
    tableName: local.tableName,
    client: documentClient({ endpoint: local.dynamoEndpoint, region: local.region, credentials: LOCAL_CREDENTIALS }),
    description: `the local runtime on port ${String(local.port)} (data folder ${local.dataDir})`,
    outputs: s3OutputReader(
      local.outputBucket,
      new S3Client({
        endpoint: local.s3Endpoint,
        region: local.region,
        credentials: LOCAL_CREDENTIALS,
        forcePathStyle: true,
      }),
    ),
    ownerPool: {
      poolId: local.ownerPoolId,
      client: new CognitoIdentityProviderClient({
        endpoint: local.cognitoEndpoint,
        region: local.region,
        credentials: LOCAL_CREDENTIALS,
      }),
    },
  };
};
