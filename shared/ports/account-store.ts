import type { AccountId } from '../domain/ids.ts';

/** The secrets that sign an account's webhooks: the current one, and the one being rotated out. */
export interface SigningSecrets {
  readonly current: string;
  /** Still signs (next to the current one) until `previousValidUntilMs`. */
  readonly previous: string | null;
  readonly previousValidUntilMs: number | null;
}

/** What the owner and the admin command line see of an account. Money in kopecks. */
export interface AccountSummary {
  readonly id: AccountId;
  /** Its handle (`GET /account`'s `username`): unique among accounts; the id for an account made without one. */
  readonly username: string;
  /** What it is called; its username unless the operator named it. */
  readonly name: string;
  readonly createdAt: string;
  readonly balanceKopecks: number;
  /** The balance less the holds of predictions in flight. */
  readonly availableKopecks: number;
  /** What predictions in flight hold of the balance; 0 at rest. */
  readonly heldKopecks: number;
  /** null: no monthly limit. */
  readonly monthlyLimitKopecks: number | null;
  readonly month: string;
  readonly spentThisMonthKopecks: number;
}

export interface TokenSummary {
  readonly id: string;
  /** The first characters only: the token itself is never stored. */
  readonly hint: string;
  /** What the owner called it; null for tokens made without a name (the admin CLI's). */
  readonly name: string | null;
  readonly createdAt: string;
  readonly revoked: boolean;
  /** When an API request last used it, to within TOKEN_USE_RECORDED_EVERY_MS; null: never. */
  readonly lastUsedAt: string | null;
}

export interface TokenOwner {
  readonly account: AccountId;
  readonly tokenId: string;
  /** Requests per second this account may make, when it has its own; else the service default. */
  readonly ratePerSecond: number | null;
  /** The token's last recorded use (ms since the epoch); null: never used. */
  readonly lastUsedMs: number | null;
}

/** A user of the owners' pool linked to an account. */
export interface OwnerLink {
  readonly sub: string;
  /** null for a link made before emails were kept with it. */
  readonly email: string | null;
  readonly linkedAt: string;
}

/** A handle: lower-case letters, digits and dashes, as Replicate's usernames are. Not a UUID: ids are handles already. */
export const USERNAME =
  /^(?![0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$)[a-z0-9](?:[a-z0-9-]{0,37}[a-z0-9])?$/;

/** An account of that id exists already (a restart's local account, say). */
export class AccountExists extends Error {
  override readonly name = 'AccountExists';

  constructor(readonly id: string) {
    super(`account ${id} exists already`);
  }
}

/** Another account has the handle asked for. */
export class UsernameTaken extends Error {
  override readonly name = 'UsernameTaken';

  constructor(readonly username: string) {
    super(`the username ${username} is another account's`);
  }
}

export interface NewAccount {
  /** Default: the account's id. Refused with UsernameTaken when another account has it. */
  readonly username?: string;
  /** Default: the username. */
  readonly displayName?: string;
  readonly ratePerSecond?: number;
  readonly balanceKopecks?: number;
  readonly monthlyLimitKopecks?: number | null;
}

/** The port to accounts: balance and monthly limit, API tokens, webhook signing secrets, owners. */
export interface AccountStore {
  /** Creates the account with its webhook signing secret; AccountExists if it does, UsernameTaken if its handle is another's. */
  createAccount(id: AccountId, nowMs: number, initial?: NewAccount): Promise<void>;
  getAccount(id: AccountId, nowMs: number): Promise<AccountSummary | null>;
  /**
   * What a create needs before its write: that the account exists, and its monthly limit (null:
   * none). One read of the account's item, not of its month's spend, which the write checks.
   */
  monthlyLimitOf(id: AccountId): Promise<{ readonly monthlyLimitKopecks: number | null } | null>;
  /** How many predictions of `model` the account made in the month of `nowMs`. */
  runsThisMonth(id: AccountId, model: string, nowMs: number): Promise<number>;
  topUp(id: AccountId, kopecks: number): Promise<void>;
  setMonthlyLimit(id: AccountId, kopecks: number | null): Promise<void>;
  listTokens(id: AccountId): Promise<TokenSummary[]>;
  /** False when the account has no such token. */
  revokeToken(id: AccountId, tokenId: string): Promise<boolean>;
  signingSecrets(id: AccountId, nowMs: number): Promise<SigningSecrets | null>;
  /** A new current secret; the old one keeps signing for `graceMs`. */
  rotateSigningSecret(id: AccountId, nowMs: number, graceMs: number): Promise<SigningSecrets>;
  /** Stores the token's hash (never the token) pointing at its account; returns the token as listed. */
  addToken(account: AccountId, token: string, nowMs: number, name?: string): Promise<TokenSummary>;
  /** The account behind a token, or null for an unknown or revoked one. */
  accountForToken(token: string): Promise<TokenOwner | null>;
  /**
   * Records that the token was used at `nowMs`, unless a use within TOKEN_USE_RECORDED_EVERY_MS is
   * recorded already (then nothing is written); true when it wrote.
   */
  recordTokenUse(token: string, nowMs: number): Promise<boolean>;
  /** Makes the signed-in user `sub` (a Cognito user id) an owner of the account (of it alone: a link replaces any other). */
  linkOwner(sub: string, account: AccountId, nowMs: number, email?: string): Promise<void>;
  /** The users linked to the account as its owners. */
  ownersOf(account: AccountId): Promise<OwnerLink[]>;
  /** The account the signed-in user owns, or null. */
  accountForOwner(sub: string): Promise<Omit<TokenOwner, 'tokenId' | 'lastUsedMs'> | null>;
}
