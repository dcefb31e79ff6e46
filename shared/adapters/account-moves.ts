import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AccountMoves, Reservation } from '../domain/billing.ts';
import type { AccountId } from '../domain/ids.ts';
import { accountKey, spendKey } from './table-keys.ts';

/**
 * The account item keeps each month it is in (and the month before) as two counts: what the month
 * committed (spent plus holds in flight), which a reservation is checked against, and what it
 * holds in flight; what it spent is the one less the other. On the account item, so that a create
 * and an end each write one item of the account and nothing else (architecture: Data).
 */
export const committedAttributeOf = (month: string): string => `committed#${month}`;
export const heldAttributeOf = (month: string): string => `held#${month}`;
const MONTH_ATTRIBUTE = /^(?:committed|held)#(\d{4}-\d{2})$/;

/** What the month's predictions spent, from the account item's counts; null when the month is not open on it. */
export const spentOfAccountItem = (item: Record<string, unknown>, month: string): number | null => {
  const committed = item[committedAttributeOf(month)];
  const held = item[heldAttributeOf(month)];
  return typeof committed === 'number' && typeof held === 'number' ? committed - held : null;
};

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
 * The account item's share of a move (balance, available funds, the month's committed spend and
 * holds, each added to what is stored) under `condition`; when it fails, the account as it stood comes back
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
    UpdateExpression: 'ADD balance_kopecks :balance, available_kopecks :available, #committed :committed, #held :held',
    ConditionExpression: condition,
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
    ExpressionAttributeNames: {
      '#committed': committedAttributeOf(moves.month),
      '#held': heldAttributeOf(moves.month),
    },
    ExpressionAttributeValues: {
      ':balance': moves.balanceKopecks,
      ':available': moves.availableKopecks,
      ':committed': moves.committedKopecks,
      // What is committed and not spent is held: a hold adds to both, an end takes its hold back.
      ':held': moves.committedKopecks - moves.spentKopecks,
      ...conditionValues,
    },
  },
});

const previousMonth = (month: string): string => {
  const [year = 0, number = 1] = month.split('-').map(Number);
  return new Date(Date.UTC(year, number - 2, 1)).toISOString().slice(0, 7);
};

/** What a month carries into the account item when it is opened there. */
export interface CarriedMonth {
  readonly committedKopecks: number;
  readonly spentKopecks: number;
}

/**
 * Opens `month` on the account item with what it has committed and spent so far (from a spend
 * item written before the account item held them, else nothing), and drops the counts of months
 * before the last (an instance whose clock lags may still reserve in the last one, and a
 * prediction of the last may still end). Only once: an opening that lost to another leaves the
 * other's counts.
 */
export const monthOpening = (
  tableName: string,
  owner: AccountId,
  month: string,
  carried: CarriedMonth,
  item: RawAccountItem,
) => {
  const keep = new Set([month, previousMonth(month)]);
  const stale = Object.keys(item).filter((name) => {
    const found = MONTH_ATTRIBUTE.exec(name)?.[1];
    return found !== undefined && !keep.has(found) && found < month;
  });
  const staleNames = Object.fromEntries(stale.map((name, at) => [`#stale${at}`, name]));
  return {
    TableName: tableName,
    Key: accountKey(owner),
    UpdateExpression: `SET #committed = :committed, #held = :held${stale.length === 0 ? '' : ` REMOVE ${Object.keys(staleNames).join(', ')}`}`,
    ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(#committed)',
    ExpressionAttributeNames: {
      '#committed': committedAttributeOf(month),
      '#held': heldAttributeOf(month),
      ...staleNames,
    },
    ExpressionAttributeValues: {
      ':committed': carried.committedKopecks,
      ':held': carried.committedKopecks - carried.spentKopecks,
    },
  };
};

/**
 * Opens `month` on the account item (`monthOpening`), carrying what the month's spend item
 * counted before the account item held it (a table written by an earlier version).
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
      ProjectionExpression: 'committed_kopecks, spent_kopecks',
      ConsistentRead: true,
    }),
  );
  const carried = {
    committedKopecks: typeof spend?.committed_kopecks === 'number' ? spend.committed_kopecks : 0,
    spentKopecks: typeof spend?.spent_kopecks === 'number' ? spend.spent_kopecks : 0,
  };
  try {
    await client.send(new UpdateCommand(monthOpening(tableName, owner, month, carried, item)));
  } catch (error) {
    // Another create opened it first, or the account is gone: the next try says which.
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
};

/**
 * The update of a transaction that settles an ended prediction as the domain decided: the account
 * item (balance, available funds, the month's committed spend and holds), each amount added to
 * what is stored. The month must be open on the item: an ADD would make its counts from nothing
 * (`openMonth` opens it).
 */
export const settlementUpdate = (tableName: string, owner: AccountId, moves: AccountMoves) =>
  accountUpdate(tableName, owner, moves, 'attribute_exists(#committed)', {});
