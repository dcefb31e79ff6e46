import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Where `npm start` says how to reach its emulators while it runs. */
export const LOCAL_RUNTIME_FILE = path.resolve(import.meta.dirname, '..', 'local', '.data', 'runtime.json');

export interface Target {
  readonly tableName: string;
  readonly client: DynamoDBDocumentClient;
  readonly description: string;
}

const documentClient = (config: DynamoDBClientConfig) =>
  DynamoDBDocumentClient.from(new DynamoDBClient(config), { marshallOptions: { removeUndefinedValues: true } });

/**
 * The table to administer: a deployed stack's (`--stack NAME`, read from its outputs with the
 * usual AWS credentials), a table named outright (`--table NAME`), or else the running local
 * runtime's.
 */
export const resolveTarget = async (options: { stack?: string; table?: string }): Promise<Target> => {
  if (options.table) return { tableName: options.table, client: documentClient({}), description: `table ${options.table}` };
  if (options.stack) {
    const { Stacks = [] } = await new CloudFormationClient({}).send(new DescribeStacksCommand({ StackName: options.stack }));
    const tableName = Stacks[0]?.Outputs?.find((output) => output.OutputKey === 'TableName')?.OutputValue;
    if (!tableName) throw new Error(`stack ${options.stack} has no TableName output`);
    return { tableName, client: documentClient({}), description: `stack ${options.stack}` };
  }
  if (!existsSync(LOCAL_RUNTIME_FILE)) {
    throw new Error('no local runtime is running (start it with `npm start`), and no --stack or --table was given');
  }
  const local = JSON.parse(readFileSync(LOCAL_RUNTIME_FILE, 'utf8')) as { dynamoEndpoint: string; tableName: string; region: string };
  return {
    tableName: local.tableName,
    client: documentClient({ endpoint: local.dynamoEndpoint, region: local.region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
    description: 'the local runtime',
  };
};
