import type { AccountMoves, Reservation } from '../domain/billing.ts';
import type { AccountId } from '../domain/ids.ts';
import { accountKey, spendKey } from './table-keys.ts';

/** The month's spend item also counts the predictions made of each model (`runOf`), for its `run_count`. */
export const runsAttributeOf = (model: string): string => `runs#${model}`;

/** The account's monthly limit is still the one a reservation was reckoned against. */
const limitStillCondition = (limitKopecks: number | null): string =>
  limitKopecks === null
    ? '(attribute_not_exists(monthly_limit_kopecks) OR attribute_type(monthly_limit_kopecks, :null))'
    : 'monthly_limit_kopecks = :limit';

/**
 * The monthly limit of an account's item as a failed condition returns it (DynamoDB's own JSON),
 * or undefined for no account.
 */
export const limitOfAccountItem = (item: Record<string, { N?: string }> | undefined): number | null | undefined =>
  item === undefined
    ? undefined
    : item.monthly_limit_kopecks?.N === undefined
      ? null
      : Number(item.monthly_limit_kopecks.N);

/**
 * The two updates of a transaction that move an account's money as the domain decided (the
 * account's item, then the month's spend item), each amount added to what is stored. With a
 * reservation, each carries its check: the account's available funds cover the hold, and its
 * limit is the one the reservation was reckoned against; the month's committed spend leaves room
 * for it under that limit.
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
        ...(reservation === null
          ? {}
          : {
              ConditionExpression: `available_kopecks >= :minAvailable AND ${limitStillCondition(reservation.limitKopecks)}`,
              // Which of the two failed, when one did: the account as it stood (limitOfAccountItem).
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
            }),
        ExpressionAttributeValues: {
          ':balance': moves.balanceKopecks,
          ':available': moves.availableKopecks,
          ...(reservation === null
            ? {}
            : {
                ':minAvailable': reservation.minAvailableKopecks,
                ...(reservation.limitKopecks === null ? { ':null': 'NULL' } : { ':limit': reservation.limitKopecks }),
              }),
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
