import { DeleteCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from '../zod-mini.ts';
import type { ModelExamples } from '../ports/model-examples.ts';
import { dynamo } from './aws-clients.ts';
import { keysetPage } from './keyset-page.ts';
import { EXAMPLE_PREFIX, exampleKey, examplesPartition, TABLE_KEY } from './table-keys.ts';

/** The item, parsed when read back (the table is a trust boundary); made at the first read. */
const exampleItem = z.lazy(() =>
  z.object({
    model: z.string(),
    prediction_id: z.string(),
    added_at: z.string(),
    // JSON text, as a prediction's input is kept (prediction-item.ts): any JSON fits.
    prediction_json: z.string(),
  }),
);

/** A model's examples in its own partition of the single table, by when they were marked. */
export const dynamoModelExamples = (tableName: string, client: DynamoDBDocumentClient = dynamo()): ModelExamples => {
  const itemsOf = async (model: string) => {
    const items: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const { Items = [], LastEvaluatedKey } = await client.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: '#p = :p',
          ExpressionAttributeNames: { '#p': TABLE_KEY.partition },
          ExpressionAttributeValues: { ':p': examplesPartition(model) },
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      items.push(...Items);
      start = LastEvaluatedKey;
    } while (start);
    return items;
  };
  const findOf = async (model: string, predictionId: string) =>
    (await itemsOf(model)).find((item) => item.prediction_id === predictionId);
  return {
    async add(example) {
      const kept = await findOf(example.model, example.predictionId);
      const addedAt = kept === undefined ? example.addedAt : exampleItem.parse(kept).added_at;
      await client.send(
        new PutCommand({
          TableName: tableName,
          Item: {
            ...exampleKey(example.model, addedAt, example.predictionId),
            type: 'example',
            model: example.model,
            prediction_id: example.predictionId,
            added_at: addedAt,
            prediction_json: JSON.stringify(example.prediction),
          },
        }),
      );
    },
    async remove(model, predictionId) {
      const kept = await findOf(model, predictionId);
      if (kept === undefined) return false;
      await client.send(
        new DeleteCommand({
          TableName: tableName,
          Key: { [TABLE_KEY.partition]: kept[TABLE_KEY.partition], [TABLE_KEY.sort]: kept[TABLE_KEY.sort] },
        }),
      );
      return true;
    },
    async list(model, request) {
      const page = await keysetPage(
        client,
        {
          tableName,
          partition: { name: TABLE_KEY.partition, value: examplesPartition(model) },
          sort: { name: TABLE_KEY.sort, prefix: EXAMPLE_PREFIX },
          descending: false,
        },
        request,
      );
      return {
        ...page,
        items: page.items.map((item) => {
          const parsed = exampleItem.parse(item);
          return {
            model: parsed.model,
            predictionId: parsed.prediction_id,
            addedAt: parsed.added_at,
            prediction: JSON.parse(parsed.prediction_json) as Record<string, unknown>,
          };
        }),
      };
    },
  };
};
