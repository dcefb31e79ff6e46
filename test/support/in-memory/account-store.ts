import { randomUUID } from 'node:crypto';
import { formatTimestamp } from '../../../shared/domain/clock.ts';
import type { AccountId } from '../../../shared/domain/ids.ts';
import { monthOf } from '../../../shared/domain/money.ts';
import {
  generateSigningSecret,
  hashToken,
  tokenHint,
  TOKEN_USE_RECORDED_EVERY_MS,
} from '../../../shared/domain/tokens.ts';
import {
  AccountExists,
  UsernameTaken,
  type AccountStore,
  type OwnerLink,
  type SigningSecrets,
  type TokenSummary,
} from '../../../shared/ports/account-store.ts';
import { answer } from './answer.ts';
import { Ledger } from './ledger.ts';

interface AccountRecord {
  readonly username: string;
  readonly name: string;
  readonly createdAt: string;
  readonly ratePerSecond: number | null;
  signingSecret: string;
  previousSigningSecret: string | null;
  previousValidUntilMs: number | null;
}

interface TokenRecord {
  readonly account: AccountId;
  readonly summary: TokenSummary;
  revoked: boolean;
  lastUsedMs: number | null;
}

/** The account store in memory; its money lives in `ledger`, which a prediction store may share. */
export const inMemoryAccountStore = (ledger: Ledger = new Ledger()): AccountStore & { readonly ledger: Ledger } => {
  const accounts = new Map<AccountId, AccountRecord>();
  const tokens = new Map<string, TokenRecord>();
  const owners = new Map<string, OwnerLink & { readonly account: AccountId }>();
  const existing = (id: AccountId): AccountRecord => {
    const account = accounts.get(id);
    if (!account) throw new Error(`account ${id} does not exist`);
    return account;
  };
  const secretsOf = (account: AccountRecord, nowMs: number): SigningSecrets => {
    const until = account.previousValidUntilMs;
    const previous =
      account.previousSigningSecret !== null && until !== null && until > nowMs ? account.previousSigningSecret : null;
    return { current: account.signingSecret, previous, previousValidUntilMs: previous === null ? null : until };
  };
  const summaryOf = (record: TokenRecord): TokenSummary => ({
    ...record.summary,
    revoked: record.revoked,
    lastUsedAt: record.lastUsedMs === null ? null : formatTimestamp(record.lastUsedMs),
  });
  return {
    ledger,
    createAccount: (id, nowMs, initial = {}) =>
      answer(() => {
        if (accounts.has(id)) throw new AccountExists(id);
        const username = initial.username ?? id;
        if ([...accounts.values()].some((account) => account.username === username)) throw new UsernameTaken(username);
        accounts.set(id, {
          username,
          name: initial.displayName ?? username,
          createdAt: formatTimestamp(nowMs),
          ratePerSecond: initial.ratePerSecond ?? null,
          signingSecret: generateSigningSecret(),
          previousSigningSecret: null,
          previousValidUntilMs: null,
        });
        ledger.open(id, initial.balanceKopecks ?? 0, initial.monthlyLimitKopecks ?? null);
      }),
    getAccount(id, nowMs) {
      const account = accounts.get(id);
      const money = ledger.account(id);
      if (!account || !money) return Promise.resolve(null);
      const month = monthOf(nowMs);
      return Promise.resolve({
        id,
        username: account.username,
        name: account.name,
        createdAt: account.createdAt,
        balanceKopecks: money.balanceKopecks,
        availableKopecks: money.availableKopecks,
        heldKopecks: money.balanceKopecks - money.availableKopecks,
        monthlyLimitKopecks: money.monthlyLimitKopecks,
        month,
        spentThisMonthKopecks: ledger.spend(id, month).spentKopecks,
      });
    },
    monthlyLimitOf: (id) =>
      answer(() => {
        const money = ledger.account(id);
        return accounts.has(id) && money ? { monthlyLimitKopecks: money.monthlyLimitKopecks } : null;
      }),
    runsThisMonth: (id, model, nowMs) => answer(() => ledger.runs(id, monthOf(nowMs), model)),
    topUp: (id, kopecks) =>
      answer(() => {
        if (!Number.isInteger(kopecks) || kopecks <= 0)
          throw new Error('a top-up is a positive whole number of kopecks');
        existing(id);
        ledger.topUp(id, kopecks);
      }),
    setMonthlyLimit: (id, kopecks) =>
      answer(() => {
        if (kopecks !== null && (!Number.isInteger(kopecks) || kopecks < 0))
          throw new Error('a limit is a whole number of kopecks, or none');
        existing(id);
        ledger.setMonthlyLimit(id, kopecks);
      }),
    listTokens(id) {
      const listed = [...tokens.values()]
        .filter((record) => record.account === id)
        .sort((a, b) => (`${a.summary.createdAt}#${a.summary.id}` < `${b.summary.createdAt}#${b.summary.id}` ? -1 : 1));
      return Promise.resolve(listed.map(summaryOf));
    },
    revokeToken(id, tokenId) {
      const found = [...tokens.values()].find((record) => record.account === id && record.summary.id === tokenId);
      if (found) found.revoked = true;
      return Promise.resolve(found !== undefined);
    },
    signingSecrets(id, nowMs) {
      const account = accounts.get(id);
      return Promise.resolve(account ? secretsOf(account, nowMs) : null);
    },
    rotateSigningSecret: (id, nowMs, graceMs) =>
      answer(() => {
        const account = existing(id);
        account.previousSigningSecret = account.signingSecret;
        account.signingSecret = generateSigningSecret();
        account.previousValidUntilMs = nowMs + graceMs;
        return {
          current: account.signingSecret,
          previous: account.previousSigningSecret,
          previousValidUntilMs: nowMs + graceMs,
        };
      }),
    addToken(account, token, nowMs, name) {
      const summary: TokenSummary = {
        id: randomUUID(),
        hint: tokenHint(token),
        name: name ?? null,
        createdAt: formatTimestamp(nowMs),
        revoked: false,
        lastUsedAt: null,
      };
      tokens.set(hashToken(token), { account, summary, revoked: false, lastUsedMs: null });
      return Promise.resolve(summary);
    },
    accountForToken(token) {
      const record = tokens.get(hashToken(token));
      if (!record || record.revoked) return Promise.resolve(null);
      return Promise.resolve({
        account: record.account,
        tokenId: record.summary.id,
        ratePerSecond: accounts.get(record.account)?.ratePerSecond ?? null,
        lastUsedMs: record.lastUsedMs,
      });
    },
    recordTokenUse(token, nowMs) {
      const record = tokens.get(hashToken(token));
      // Of the uses within TOKEN_USE_RECORDED_EVERY_MS of the last recorded one, none is written.
      if (!record || (record.lastUsedMs !== null && record.lastUsedMs >= nowMs - TOKEN_USE_RECORDED_EVERY_MS))
        return Promise.resolve(false);
      record.lastUsedMs = nowMs;
      return Promise.resolve(true);
    },
    linkOwner(sub, account, nowMs, email) {
      owners.set(sub, { sub, account, email: email ?? null, linkedAt: formatTimestamp(nowMs) });
      return Promise.resolve();
    },
    ownersOf(account) {
      const linked = [...owners.values()]
        .filter((link) => link.account === account)
        .sort((a, b) => (a.sub < b.sub ? -1 : 1))
        .map(({ sub, email, linkedAt }) => ({ sub, email, linkedAt }));
      return Promise.resolve(linked);
    },
    accountForOwner(sub) {
      const link = owners.get(sub);
      const account = link ? accounts.get(link.account) : undefined;
      if (!link || !account) return Promise.resolve(null);
      return Promise.resolve({ account: link.account, ratePerSecond: account.ratePerSecond });
    },
  };
};
