import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DeploymentChange, DeploymentLog } from '../ports/deployment-log.ts';
import { dynamo } from './aws-clients.ts';
import { deploymentPartition, deploymentReleaseKey, TABLE_KEY } from './table-keys.ts';

const changeOf = (item: Record<string, unknown>): DeploymentChange => ({
  model: String(item.model),
  release: Number(item.release),
  by: String(item.by),
  atMs: Number(item.at_ms),
  before: { minInstances: Number(item.before_min), maxInstances: Number(item.before_max) },
  after: { minInstances: Number(item.after_min), maxInstances: Number(item.after_max) },
});

/** Each change an item of its deployment's partition, kept for good: a deployment changes rarely. */
export const dynamoDeploymentLog = (tableName: string, client: DynamoDBDocumentClient = dynamo()): DeploymentLog => ({
  async changes(model, limit) {
    const { Items = [] } = await client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': TABLE_KEY.partition },
        ExpressionAttributeValues: { ':pk': deploymentPartition(model) },
        ScanIndexForward: false,
        Limit: limit,
      }),
    );
    return Items.map(changeOf);
  },
  async record(change) {
    try {
      await client.send(
        new PutCommand({
          TableName: tableName,
          Item: {
            ...deploymentReleaseKey(change.model, change.release),
            model: change.model,
            release: change.release,
            by: change.by,
            at_ms: change.atMs,
            before_min: change.before.minInstances,
            before_max: change.before.maxInstances,
            after_min: change.after.minInstances,
            after_max: change.after.maxInstances,
          },
          ConditionExpression: 'attribute_not_exists(#pk)',
          ExpressionAttributeNames: { '#pk': TABLE_KEY.partition },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  },
});
