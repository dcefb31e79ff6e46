import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from '../zod-mini.ts';
import { predictionIdSchema, type AccountId, type PredictionId } from '../domain/ids.ts';
import type { IdempotencyClaim, PriorClaim } from '../domain/idempotency.ts';
import { idempotencyKey } from './table-keys.ts';

/**
 * The claim's part of a create's transaction: it fails while a live claim on the key exists.
 * TTL deletes expired items days late, so an expired one must not count.
 */
export const idempotencyClaimPut = (
  tableName: string,
  owner: AccountId,
  predictionId: PredictionId,
  claim: IdempotencyClaim,
) => ({
  Put: {
    TableName: tableName,
    Item: {
      ...idempotencyKey(owner, claim.keyHash),
      type: 'idempotency',
      fingerprint: claim.fingerprint,
      prediction_id: predictionId,
      expires_at: claim.expiresAtSeconds,
    },
    ConditionExpression: 'attribute_not_exists(pk) OR expires_at < :now',
    ExpressionAttributeValues: { ':now': claim.madeAtSeconds },
  },
});

const recordItem = z.object({ fingerprint: z.string(), prediction_id: predictionIdSchema, expires_at: z.number() });

/**
 * The claim that stood in `claim`'s way, if it is still live. Read consistently: the create that
 * lost a race reads the winner's claim right after the winner's transaction.
 */
export const readLiveClaim = async (
  client: DynamoDBDocumentClient,
  tableName: string,
  owner: AccountId,
  claim: IdempotencyClaim,
): Promise<PriorClaim | null> => {
  const { Item } = await client.send(
    new GetCommand({ TableName: tableName, Key: idempotencyKey(owner, claim.keyHash), ConsistentRead: true }),
  );
  if (!Item) return null;
  const record = recordItem.parse(Item);
  if (record.expires_at < claim.madeAtSeconds) return null;
  return { predictionId: record.prediction_id, fingerprint: record.fingerprint };
};
