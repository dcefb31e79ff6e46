import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  UpdateTableCommand,
  ResourceInUseException,
  type AttributeDefinition,
  type GlobalSecondaryIndex,
  type KeySchemaElement,
} from '@aws-sdk/client-dynamodb';
import {
  CognitoIdentityProviderClient,
  CreateGroupCommand,
  CreateUserPoolClientCommand,
  CreateUserPoolCommand,
  type CreateUserPoolRequest,
  type ExplicitAuthFlowsType,
} from '@aws-sdk/client-cognito-identity-provider';
import { setTimeout as sleep } from 'node:timers/promises';
import { CreateBucketCommand, type S3Client } from '@aws-sdk/client-s3';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { sqs } from '../shared/adapters/sqs-client.ts';
import { s3 } from '../shared/adapters/s3-client.ts';
import { resolveIntrinsics, resourcesOfType, type CfnTemplate, type LocalBindings } from './template.ts';

/** What the template declares, made in the emulators: each resource's local name (a queue's URL and ARN), by logical id. */
export interface LocalResources {
  readonly tables: ReadonlyMap<string, string>;
  readonly queues: ReadonlyMap<string, LocalQueue>;
  readonly buckets: ReadonlyMap<string, string>;
  readonly userPools: ReadonlyMap<string, string>;
}

/** Creates every table, queue, bucket and user pool of the template in the emulators (the SDK's endpoints point there). */
export const provisionResources = async (template: CfnTemplate): Promise<LocalResources> => ({
  tables: await provisionTables(template, new DynamoDBClient({})),
  queues: await provisionQueues(template, await sqs()),
  buckets: await provisionBuckets(template, await s3()),
  userPools: await provisionUserPools(template, new CognitoIdentityProviderClient({})),
});

/** Creates, in DynamoDB Local, every table the template declares (same keys and indexes). */
export const provisionTables = async (template: CfnTemplate, client: DynamoDBClient): Promise<Map<string, string>> => {
  const names = new Map<string, string>();
  for (const [logicalId, resource] of [
    ...resourcesOfType(template, 'AWS::DynamoDB::GlobalTable'),
    ...resourcesOfType(template, 'AWS::DynamoDB::Table'),
  ]) {
    const props = resource.Properties ?? {};
    const indexes = (props.GlobalSecondaryIndexes ?? []) as IndexDefinition[];
    try {
      await client.send(
        new CreateTableCommand({
          TableName: logicalId,
          BillingMode: 'PAY_PER_REQUEST',
          KeySchema: props.KeySchema as KeySchemaElement[],
          AttributeDefinitions: props.AttributeDefinitions as AttributeDefinition[],
          ...(indexes.length > 0
            ? {
                GlobalSecondaryIndexes: indexes.map((index) => ({
                  IndexName: index.IndexName,
                  KeySchema: index.KeySchema,
                  Projection: index.Projection ?? { ProjectionType: 'ALL' },
                })),
              }
            : {}),
        }),
      );
    } catch (error) {
      if (!(error instanceof ResourceInUseException)) throw error;
      await matchIndexes(client, logicalId, props.AttributeDefinitions as AttributeDefinition[], indexes);
    }
    names.set(logicalId, logicalId);
  }
  return names;
};

type IndexDefinition = {
  IndexName: string;
  KeySchema: KeySchemaElement[];
  Projection?: GlobalSecondaryIndex['Projection'];
};

const projectionOf = (index: Pick<IndexDefinition, 'Projection'>): string => {
  const projection = index.Projection ?? { ProjectionType: 'ALL' };
  return JSON.stringify([projection.ProjectionType ?? 'ALL', [...(projection.NonKeyAttributes ?? [])].sort()]);
};

/**
 * A table kept from an earlier run (npm start keeps its data) is brought to the template's
 * indexes as a CloudFormation update would: those added since are created, those removed since
 * are deleted, and one whose keys or projection changed is made anew. One at a time, each settled
 * before the next: DynamoDB makes or removes one index of a table at once.
 */
const matchIndexes = async (
  client: DynamoDBClient,
  table: string,
  attributes: AttributeDefinition[],
  indexes: IndexDefinition[],
): Promise<void> => {
  const { Table } = await client.send(new DescribeTableCommand({ TableName: table }));
  const wanted = new Map(indexes.map((index) => [index.IndexName, index]));
  const existing = new Set<string>();
  for (const index of Table?.GlobalSecondaryIndexes ?? []) {
    const name = index.IndexName ?? '';
    const definition = wanted.get(name);
    const same =
      definition !== undefined &&
      JSON.stringify(definition.KeySchema) === JSON.stringify(index.KeySchema) &&
      projectionOf(definition) === projectionOf(index);
    if (same) existing.add(name);
    else {
      await client.send(
        new UpdateTableCommand({ TableName: table, GlobalSecondaryIndexUpdates: [{ Delete: { IndexName: name } }] }),
      );
      await indexesSettled(client, table);
    }
  }
  for (const index of indexes.filter((candidate) => !existing.has(candidate.IndexName))) {
    const names = new Set(index.KeySchema.map((key) => key.AttributeName));
    await client.send(
      new UpdateTableCommand({
        TableName: table,
        AttributeDefinitions: attributes.filter((attribute) => names.has(attribute.AttributeName)),
        GlobalSecondaryIndexUpdates: [
          {
            Create: {
              IndexName: index.IndexName,
              KeySchema: index.KeySchema,
              Projection: index.Projection ?? { ProjectionType: 'ALL' },
            },
          },
        ],
      }),
    );
    await indexesSettled(client, table);
  }
};

/** How long a kept table's indexes may take to be made or removed (a backfill reads every item). */
const INDEX_SETTLE_LIMIT_MS = 120_000;

/** Until every index is ACTIVE and none is being removed: a query on an index still backfilling fails. */
const indexesSettled = async (client: DynamoDBClient, table: string): Promise<void> => {
  for (const started = Date.now(); ; await sleep(100)) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: table }));
    if ((Table?.GlobalSecondaryIndexes ?? []).every((index) => index.IndexStatus === 'ACTIVE')) return;
    if (Date.now() - started > INDEX_SETTLE_LIMIT_MS)
      throw new Error(`the indexes of table ${table} did not settle in ${INDEX_SETTLE_LIMIT_MS / 1000} s`);
  }
};

export interface LocalQueue {
  readonly url: string;
  readonly arn: string;
}

/**
 * Creates every queue of the template in the SQS emulator with the template's settings,
 * dead-letter redrive included (dead-letter queues first, since others point at them).
 */
export const provisionQueues = async (template: CfnTemplate, client: SQSClient): Promise<Map<string, LocalQueue>> => {
  const queues = new Map<string, LocalQueue>();
  const pending = resourcesOfType(template, 'AWS::SQS::Queue');
  const bindings: LocalBindings = {
    ref: (id) => queues.get(id)?.url ?? missing(id),
    getAtt: (id) => queues.get(id)?.arn ?? missing(id),
  };
  while (pending.length > 0) {
    const index = pending.findIndex(([, resource]) => {
      const target = (
        resource.Properties?.RedrivePolicy as { deadLetterTargetArn?: { 'Fn::GetAtt'?: string[] } } | undefined
      )?.deadLetterTargetArn?.['Fn::GetAtt']?.[0];
      return target === undefined || queues.has(target);
    });
    if (index < 0) throw new Error('queues with circular redrive policies');
    const [[logicalId, resource]] = pending.splice(index, 1) as [[string, (typeof pending)[number][1]]];
    const props = resource.Properties ?? {};
    const attributes: Record<string, string> = {};
    if (typeof props.VisibilityTimeout === 'number') attributes.VisibilityTimeout = String(props.VisibilityTimeout);
    if (typeof props.MessageRetentionPeriod === 'number')
      attributes.MessageRetentionPeriod = String(props.MessageRetentionPeriod);
    if (props.RedrivePolicy !== undefined)
      attributes.RedrivePolicy = JSON.stringify(resolveIntrinsics(props.RedrivePolicy, bindings));
    const { QueueUrl } = await client.send(new CreateQueueCommand({ QueueName: logicalId, Attributes: attributes }));
    if (!QueueUrl) throw new Error(`no URL for queue ${logicalId}`);
    const { Attributes } = await client.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }));
    queues.set(logicalId, { url: QueueUrl, arn: Attributes?.QueueArn ?? missing(logicalId) });
  }
  return queues;
};

const missing = (id: string): never => {
  throw new Error(`the template refers to ${id}, which the local runtime did not create`);
};

/** Creates, in the S3 emulator, every bucket the template declares; named after its logical id (S3 wants lower case). */
export const provisionBuckets = async (template: CfnTemplate, client: S3Client): Promise<Map<string, string>> => {
  const buckets = new Map<string, string>();
  for (const [logicalId] of resourcesOfType(template, 'AWS::S3::Bucket')) {
    const name = logicalId.toLowerCase();
    try {
      await client.send(new CreateBucketCommand({ Bucket: name }));
    } catch (error) {
      if (!(error instanceof Error && ['BucketAlreadyOwnedByYou', 'BucketAlreadyExists'].includes(error.name)))
        throw error;
    }
    buckets.set(logicalId, name);
  }
  return buckets;
};

/**
 * Creates, in the Cognito emulator, every user pool the template declares (its password policy
 * and sign-in attributes), every app client (its sign-in flows) and every group (the operators'),
 * each in the pool it names; their ids by logical id (a group's is its name, as its Ref is).
 */
export const provisionUserPools = async (
  template: CfnTemplate,
  client: CognitoIdentityProviderClient,
): Promise<Map<string, string>> => {
  const ids = new Map<string, string>();
  for (const [logicalId, resource] of resourcesOfType(template, 'AWS::Cognito::UserPool')) {
    const props = resource.Properties ?? {};
    const { UserPool } = await client.send(
      new CreateUserPoolCommand({
        PoolName: logicalId,
        UsernameAttributes: props.UsernameAttributes as CreateUserPoolRequest['UsernameAttributes'],
        Policies: props.Policies as CreateUserPoolRequest['Policies'],
        AutoVerifiedAttributes: props.AutoVerifiedAttributes as CreateUserPoolRequest['AutoVerifiedAttributes'],
      }),
    );
    ids.set(logicalId, UserPool?.Id ?? missing(logicalId));
  }
  const bindings: LocalBindings = { ref: (id) => ids.get(id) ?? missing(id), getAtt: (id) => missing(id) };
  for (const [logicalId, resource] of resourcesOfType(template, 'AWS::Cognito::UserPoolClient')) {
    const props = resource.Properties ?? {};
    const { UserPoolClient } = await client.send(
      new CreateUserPoolClientCommand({
        UserPoolId: String(resolveIntrinsics(props.UserPoolId, bindings)),
        ClientName: logicalId,
        ExplicitAuthFlows: props.ExplicitAuthFlows as ExplicitAuthFlowsType[],
        GenerateSecret: false,
      }),
    );
    ids.set(logicalId, UserPoolClient?.ClientId ?? missing(logicalId));
  }
  for (const [logicalId, resource] of resourcesOfType(template, 'AWS::Cognito::UserPoolGroup')) {
    const props = resource.Properties ?? {};
    const groupName = typeof props.GroupName === 'string' ? props.GroupName : logicalId;
    await client.send(
      new CreateGroupCommand({
        UserPoolId: String(resolveIntrinsics(props.UserPoolId, bindings)),
        GroupName: groupName,
        ...(typeof props.Description === 'string' ? { Description: props.Description } : {}),
      }),
    );
    ids.set(logicalId, groupName);
  }
  return ids;
};
