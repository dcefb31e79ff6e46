import type { AccountMoves, Reservation } from '../domain/billing.ts';
import type { AccountId } from '../domain/ids.ts';
import { accountKey, spendKey } from './table-keys.ts';

/** The month's spend item also counts the predictions made of each model (`runOf`), for its `run_count`. */
export const runsAttributeOf = (model: string): string => `runs#${model}`;

/**
 * The two updates of a transaction that move an account's money as the domain decided (the
 * account's item, then the month's spend item), each amount added to what is stored. With a
 * reservation, each carries its check: the account's available funds cover the hold; the month's
 * committed spend leaves room for it under the limit.
 */
export const accountMoveUpdates = (
  tableName: string,
  owner: AccountId,
  moves: AccountMoves,
  reservation: Reservation | null = null,
  runOf: string | null = null,
) => {
  const maxCommitted = reservation?.maxCommittedKopecks ?? null;
  return [
    {
      Update: {
        TableName: tableName,
        Key: accountKey(owner),
        UpdateExpression: 'ADD balance_kopecks :balance, available_kopecks :available',
        ...(reservation === null ? {} : { ConditionExpression: 'available_kopecks >= :minAvailable' }),
        ExpressionAttributeValues: {
          ':balance': moves.balanceKopecks,
          ':available': moves.availableKopecks,
          ...(reservation === null ? {} : { ':minAvailable': reservation.minAvailableKopecks }),
        },
      },
    },
    {
      Update: {
        TableName: tableName,
        Key: spendKey(owner, moves.month),
        UpdateExpression: `ADD spent_kopecks :spent, committed_kopecks :committed${runOf === null ? '' : ', #runs :one'} SET #type = :spend`,
        ...(maxCommitted === null
          ? {}
          : { ConditionExpression: 'attribute_not_exists(committed_kopecks) OR committed_kopecks <= :maxCommitted' }),
        ExpressionAttributeNames: { '#type': 'type', ...(runOf === null ? {} : { '#runs': runsAttributeOf(runOf) }) },
        ExpressionAttributeValues: {
          ...(runOf === null ? {} : { ':one': 1 }),
          ':spent': moves.spentKopecks,
          ':committed': moves.committedKopecks,
          ':spend': 'spend',
          ...(maxCommitted === null ? {} : { ':maxCommitted': maxCommitted }),
        },
      },
    },
  ] as const;
};
