import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AccountMoves, Reservation } from '../domain/billing.ts';
import type { AccountId } from '../domain/ids.ts';
import { accountKey, spendKey } from './table-keys.ts';

/** The month's spend item also counts the predictions of each model that ended (`runsAttributeOf`), for its `run_count`. */
export const runsAttributeOf = (model: string): string => `runs#${model}`;

/**
 * The account item's attribute for one month's committed spend (spent plus holds in flight), which
 * a reservation is checked against: on the account item, so that a create writes one item of the
 * account, not two (architecture: Data).
 */
export const committedAttributeOf = (month: string): string => `committed#${month}`;
const COMMITTED_ATTRIBUTE = /^committed#(\d{4}-\d{2})$/;

/** The account's monthly limit is still the one a reservation was reckoned against. */
const limitStillCondition = (limitKopecks: number | null): string =>
  limitKopecks === null
    ? '(attribute_not_exists(monthly_limit_kopecks) OR attribute_type(monthly_limit_kopecks, :null))'
    : 'monthly_limit_kopecks = :limit';

/** An account item as a failed condition returns it: DynamoDB's own JSON. */
export type RawAccountItem = Record<string, { N?: string }>;

/** The monthly limit of an account's item as a failed condition returns it, or undefined for no account. */
export const limitOfAccountItem = (item: RawAccountItem | undefined): number | null | undefined =>
  item === undefined
    ? undefined
    : item.monthly_limit_kopecks?.N === undefined
      ? null
      : Number(item.monthly_limit_kopecks.N);

/** The account as a failed reservation found it: funds, and the month's committed spend (null: the month is not open on it). */
export const reservationStateOf = (item: RawAccountItem, month: string) => {
  const committed = item[committedAttributeOf(month)]?.N;
  return {
    availableKopecks: Number(item.available_kopecks?.N ?? 0),
    committedKopecks: committed === undefined ? null : Number(committed),
  };
};

/**
 * The reservation's update of the account item, its one write of the account: the hold leaves the
 * available funds and joins the month's committed spend, provided the funds cover it, the limit is
 * the one it was reckoned against and, with a limit, the month's committed spend leaves room for it.
 * The month must be open on the item (`monthOpening`), so that what it counts is never guessed.
 */
export const reservationUpdate = (tableName: string, owner: AccountId, reservation: Reservation) => {
  const { moves, maxCommittedKopecks, limitKopecks } = reservation;
  return accountUpdate(
    tableName,
    owner,
    moves,
    [
      'available_kopecks >= :minAvailable',
      limitStillCondition(limitKopecks),
      maxCommittedKopecks === null ? 'attribute_exists(#committed)' : '#committed <= :maxCommitted',
    ].join(' AND '),
    {
      ':minAvailable': reservation.minAvailableKopecks,
      ...(limitKopecks === null ? { ':null': 'NULL' } : { ':limit': limitKopecks }),
      ...(maxCommittedKopecks === null ? {} : { ':maxCommitted': maxCommittedKopecks }),
    },
  );
};

/**
 * The account item's share of a move (balance, available funds, the month's committed spend, each
 * added to what is stored) under `condition`; when it fails, the account as it stood comes back
 * with the failure (`reservationStateOf`, `openMonth`).
 */
const accountUpdate = (
  tableName: string,
  owner: AccountId,
  moves: AccountMoves,
  condition: string,
  conditionValues: Record<string, unknown>,
) => ({
  Update: {
    TableName: tableName,
    Key: accountKey(owner),
    UpdateExpression: 'ADD balance_kopecks :balance, available_kopecks :available, #committed :committed',
    ConditionExpression: condition,
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
    ExpressionAttributeNames: { '#committed': committedAttributeOf(moves.month) },
    ExpressionAttributeValues: {
      ':balance': moves.balanceKopecks,
      ':available': moves.availableKopecks,
      ':committed': moves.committedKopecks,
      ...conditionValues,
    },
  },
});

const previousMonth = (month: string): string => {
  const [year = 0, number = 1] = month.split('-').map(Number);
  return new Date(Date.UTC(year, number - 2, 1)).toISOString().slice(0, 7);
};

/**
 * Opens `month` on the account item with what it has committed so far (`carriedKopecks`: a spend
 * item's count from before the account item held it, else 0), and drops the counts of months
 * before the last (an instance whose clock lags may still reserve in the last one). Only once:
 * an opening that lost to another leaves the other's count.
 */
export const monthOpening = (
  tableName: string,
  owner: AccountId,
  month: string,
  carriedKopecks: number,
  item: RawAccountItem,
) => {
  const keep = new Set([month, previousMonth(month)]);
  const stale = Object.keys(item).filter((name) => {
    const found = COMMITTED_ATTRIBUTE.exec(name)?.[1];
    return found !== undefined && !keep.has(found) && found < month;
  });
  const staleNames = Object.fromEntries(stale.map((name, at) => [`#stale${at}`, name]));
  return {
    TableName: tableName,
    Key: accountKey(owner),
    UpdateExpression: `SET #committed = :carried${stale.length === 0 ? '' : ` REMOVE ${Object.keys(staleNames).join(', ')}`}`,
    ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(#committed)',
    ExpressionAttributeNames: { '#committed': committedAttributeOf(month), ...staleNames },
    ExpressionAttributeValues: { ':carried': carriedKopecks },
  };
};

/**
 * Opens `month` on the account item (`monthOpening`), carrying what the month's spend item
 * counted as committed before the account item held it (a table written by an earlier version).
 */
export const openMonth = async (
  client: DynamoDBDocumentClient,
  tableName: string,
  owner: AccountId,
  month: string,
  item: RawAccountItem,
): Promise<void> => {
  const { Item: spend } = await client.send(
    new GetCommand({
      TableName: tableName,
      Key: spendKey(owner, month),
      ProjectionExpression: 'committed_kopecks',
      ConsistentRead: true,
    }),
  );
  const carried = typeof spend?.committed_kopecks === 'number' ? spend.committed_kopecks : 0;
  try {
    await client.send(new UpdateCommand(monthOpening(tableName, owner, month, carried, item)));
  } catch (error) {
    // Another create opened it first, or the account is gone: the next try says which.
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
};

/**
 * The two updates of a transaction that settle an ended prediction as the domain decided: the
 * account item (balance, available funds, the month's committed spend, which must be open on it)
 * and the month's spend item (what it spent, and one more run of `model`), each amount added to
 * what is stored.
 */
export const settlementUpdates = (tableName: string, owner: AccountId, moves: AccountMoves, model: string) =>
  [
    // An ADD would make a month's count from nothing: it is opened first (openMonth).
    accountUpdate(tableName, owner, moves, 'attribute_exists(#committed)', {}),
    {
      Update: {
        TableName: tableName,
        Key: spendKey(owner, moves.month),
        UpdateExpression: 'ADD spent_kopecks :spent, #runs :one SET #type = :spend',
        ExpressionAttributeNames: { '#type': 'type', '#runs': runsAttributeOf(model) },
        ExpressionAttributeValues: { ':spent': moves.spentKopecks, ':one': 1, ':spend': 'spend' },
      },
    },
  ] as const;
