import { PrognozError } from './errors.ts';
import { monthOf } from './money.ts';
import { isTerminal, type Hold, type Prediction } from './prediction.ts';
import { costInKopecks, roublesToMicro } from './pricing.ts';
import { err, ok, type Result } from './result.ts';

/** What a model charges and reserves: its price (roubles per second, as text) and the seconds a new prediction holds. */
export interface HoldTerms {
  readonly pricePerSecond: string;
  readonly holdSeconds: number;
}

/** What a new prediction of this model reserves, and in which month. */
export const holdFor = (model: HoldTerms, nowMs: number): Hold => ({
  kopecks: costInKopecks(model.holdSeconds * 1000, roublesToMicro(model.pricePerSecond)),
  month: monthOf(nowMs),
});

/**
 * The most the month may already have committed (spent plus holds in flight) for one more hold
 * to fit under the limit; null when there is no limit.
 */
export const maxCommittedFor = (limitKopecks: number | null, holdKopecks: number): number | null =>
  limitKopecks === null ? null : limitKopecks - holdKopecks;

/**
 * How a write moves an account's money, in kopecks, each added to what is stored: the account's
 * balance and available funds, and the spend of one month (what it spent, and what it committed:
 * spent plus the holds of predictions in flight).
 */
export interface AccountMoves {
  readonly balanceKopecks: number;
  readonly availableKopecks: number;
  readonly month: string;
  readonly spentKopecks: number;
  readonly committedKopecks: number;
}

/** The funds the account must have for a new prediction's hold, checked in the same write as the moves. */
export interface Reservation {
  readonly moves: AccountMoves;
  /** The account's available funds must be at least this (the hold). */
  readonly minAvailableKopecks: number;
  /** The month's committed spend may be at most this before the hold; null: no monthly limit. */
  readonly maxCommittedKopecks: number | null;
  /**
   * The monthly limit it was reckoned against (null: none). It holds only while the account's limit
   * is still this one, so a limit read earlier (a cache) can never let a create past a changed one.
   */
  readonly limitKopecks: number | null;
}

export const insufficientFunds = (): PrognozError =>
  new PrognozError('insufficient_funds', 'the account has not enough funds left to start this prediction; top it up');

export const monthlyLimitReached = (): PrognozError =>
  new PrognozError('monthly_limit_reached', "this month's spending limit is reached; raise it or wait for next month");

/**
 * What reserving a new prediction's hold takes: its hold moved from the account's available funds
 * to the month's committed spend, provided the funds cover it and, with a monthly limit, the
 * committed spend plus the hold stays within it. A hold larger than the limit itself is refused
 * at once, whatever the month has spent.
 */
export const reservationOf = (hold: Hold, limitKopecks: number | null): Result<Reservation, PrognozError> => {
  const maxCommittedKopecks = maxCommittedFor(limitKopecks, hold.kopecks);
  if (maxCommittedKopecks !== null && maxCommittedKopecks < 0) return err(monthlyLimitReached());
  return ok({
    moves: {
      balanceKopecks: 0,
      availableKopecks: -hold.kopecks,
      month: hold.month,
      spentKopecks: 0,
      committedKopecks: hold.kopecks,
    },
    minAvailableKopecks: hold.kopecks,
    maxCommittedKopecks,
    limitKopecks,
  });
};

/**
 * Why the account cannot take the reservation as it stands (its available funds, null for no
 * account; the month's committed spend), or null when it can. Funds are checked first.
 */
export const reservationRefusal = (
  reservation: Reservation,
  account: { readonly availableKopecks: number | null; readonly committedKopecks: number },
): PrognozError | null => {
  if (account.availableKopecks === null || account.availableKopecks < reservation.minAvailableKopecks)
    return insufficientFunds();
  if (reservation.maxCommittedKopecks !== null && account.committedKopecks > reservation.maxCommittedKopecks)
    return monthlyLimitReached();
  return null;
};

/**
 * The charge a write from `before` to `next` makes: at the move to a terminal status, its cost
 * is taken from the balance and the month's spend, and its hold released (the available funds
 * and committed spend get back the hold less the cost). Any other write moves no money, so a
 * repeated end can never charge twice.
 */
export const settlementOf = (next: Prediction, before: Prediction): AccountMoves | null => {
  if (!isTerminal(next) || isTerminal(before)) return null;
  const cost = next.costKopecks;
  const { kopecks: hold, month } = next.hold;
  return {
    balanceKopecks: -cost,
    availableKopecks: hold - cost,
    month,
    spentKopecks: cost,
    committedKopecks: cost - hold,
  };
};
