import type { AccountId } from '../domain/ids.ts';
import type { AccountStore } from '../ports/account-store.ts';

/** An account's monthly limit as a create reckons with it (null: none); `fresh` when read from the store just now. */
export interface KnownLimit {
  readonly monthlyLimitKopecks: number | null;
  readonly fresh: boolean;
}

/**
 * The monthly limits this process last read, so that a create need not read its account first.
 * A limit kept here may have changed since: the insert that reserves a hold holds only while the
 * account's limit is still the one it was reckoned against (`PredictionStore.insert`), so a kept
 * limit can make a create read again, never let one past a changed limit.
 */
export interface MonthlyLimits {
  /** As last read here, else read now; null: no such account. */
  known(owner: AccountId): Promise<KnownLimit | null>;
  /** Read now (the one known was found changed, or refused a create), and kept. */
  reread(owner: AccountId): Promise<KnownLimit | null>;
}

/** Enough for every account a busy API instance serves; past it, the least lately used goes. */
const DEFAULT_MAX_KEPT = 10_000;

export const monthlyLimitsKept = (
  accounts: Pick<AccountStore, 'monthlyLimitOf'>,
  maxKept: number = DEFAULT_MAX_KEPT,
): MonthlyLimits => {
  const kept = new Map<AccountId, number | null>();
  const keep = (owner: AccountId, limit: number | null) => {
    kept.delete(owner);
    kept.set(owner, limit);
    if (kept.size > maxKept) kept.delete(kept.keys().next().value as AccountId);
  };
  const reread = async (owner: AccountId): Promise<KnownLimit | null> => {
    const account = await accounts.monthlyLimitOf(owner);
    if (!account) {
      kept.delete(owner);
      return null;
    }
    keep(owner, account.monthlyLimitKopecks);
    return { monthlyLimitKopecks: account.monthlyLimitKopecks, fresh: true };
  };
  return {
    async known(owner) {
      const limit = kept.get(owner);
      if (limit === undefined) return reread(owner);
      keep(owner, limit);
      return { monthlyLimitKopecks: limit, fresh: false };
    },
    reread,
  };
};
