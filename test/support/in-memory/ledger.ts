import type { AccountMoves } from '../../../shared/domain/billing.ts';
import type { AccountId } from '../../../shared/domain/ids.ts';

/** An account's money and monthly limit, as the table's account item holds them (kopecks). */
export interface AccountMoney {
  balanceKopecks: number;
  availableKopecks: number;
  /** Null: no monthly limit. */
  monthlyLimitKopecks: number | null;
}

/** A month's spend, as the table's spend item holds it (kopecks). */
export interface MonthSpend {
  spentKopecks: number;
  committedKopecks: number;
}

/**
 * The money of the accounts, which the account store and the prediction store share as their
 * DynamoDB adapters share the table: the prediction store moves it as the domain decides
 * (reservations and settlements), the account store tops it up and reads it.
 */
export class Ledger {
  readonly #accounts = new Map<AccountId, AccountMoney>();
  readonly #spend = new Map<string, MonthSpend>();
  readonly #runs = new Map<string, number>();

  open(id: AccountId, balanceKopecks: number, monthlyLimitKopecks: number | null = null): void {
    this.#accounts.set(id, { balanceKopecks, availableKopecks: balanceKopecks, monthlyLimitKopecks });
  }

  setMonthlyLimit(id: AccountId, kopecks: number | null): void {
    const account = this.#accounts.get(id);
    if (!account) throw new Error(`account ${id} does not exist`);
    account.monthlyLimitKopecks = kopecks;
  }

  /** The account's money; undefined when there is no such account. */
  account(id: AccountId): Readonly<AccountMoney> | undefined {
    return this.#accounts.get(id);
  }

  spend(id: AccountId, month: string): Readonly<MonthSpend> {
    return this.#spend.get(`${id}#${month}`) ?? { spentKopecks: 0, committedKopecks: 0 };
  }

  /** Adds each move to what is kept, as the adapter's ADD does (an account missing is created, as there). */
  apply(id: AccountId, moves: AccountMoves): void {
    const account = this.#accounts.get(id) ?? { balanceKopecks: 0, availableKopecks: 0, monthlyLimitKopecks: null };
    account.balanceKopecks += moves.balanceKopecks;
    account.availableKopecks += moves.availableKopecks;
    this.#accounts.set(id, account);
    const key = `${id}#${moves.month}`;
    const spend = this.#spend.get(key) ?? { spentKopecks: 0, committedKopecks: 0 };
    spend.spentKopecks += moves.spentKopecks;
    spend.committedKopecks += moves.committedKopecks;
    this.#spend.set(key, spend);
  }

  /** Counts a prediction made of `model` in `month` (the adapter counts them from the owner index). */
  countRun(id: AccountId, month: string, model: string): void {
    const key = `${id}#${month}#${model}`;
    this.#runs.set(key, (this.#runs.get(key) ?? 0) + 1);
  }

  runs(id: AccountId, month: string, model: string): number {
    return this.#runs.get(`${id}#${month}#${model}`) ?? 0;
  }

  topUp(id: AccountId, kopecks: number): void {
    const account = this.#accounts.get(id);
    if (!account) throw new Error(`account ${id} does not exist`);
    account.balanceKopecks += kopecks;
    account.availableKopecks += kopecks;
  }
}
