import type { UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import type { ClaimTerms } from '../domain/claim.ts';
import { predictionKey } from './table-keys.ts';

/**
 * The claim of a waiting prediction as one conditional update (the store's `claimWaiting`): the
 * domain's claim terms as its condition, the `claimed` transition's changes as its update. The
 * fields match what `toItem` writes for a `processing` prediction; its sweep time stays, as the
 * transition keeps the earlier one and a wait's always comes before its run's.
 */
export const claimWaitingUpdate = (tableName: string, id: string, terms: ClaimTerms): UpdateCommandInput => ({
  TableName: tableName,
  Key: predictionKey(id),
  UpdateExpression:
    'SET #status = :processing, started_at = :startedAt, claim = :claim, ' +
    'attempts = if_not_exists(attempts, :zero) + :one, progress = :nothing, streamed = :none ' +
    'REMOVE queued_at',
  ConditionExpression:
    '(attribute_not_exists(attempts) OR attempts < :attemptsBelow) ' +
    'AND (attribute_not_exists(deadline_at) OR attribute_type(deadline_at, :nullType) OR deadline_at > :startedAt) ' +
    'AND ((#status = :starting AND created_at > :waitBeganAfter) OR (#status = :queued AND queued_at > :waitBeganAfter))',
  ExpressionAttributeNames: { '#status': 'status' },
  ExpressionAttributeValues: {
    ':processing': 'processing',
    ':startedAt': terms.startedAt,
    ':claim': terms.claim,
    ':zero': 0,
    ':one': 1,
    ':nothing': null,
    ':none': [],
    ':attemptsBelow': terms.attemptsBelow,
    ':nullType': 'NULL',
    ':starting': 'starting',
    ':queued': 'queued',
    ':waitBeganAfter': terms.waitBeganAfter,
  },
  ReturnValues: 'ALL_NEW',
});
