import type { AccountStore } from '../shared/ports/account-store.ts';
import { cognitoOwnerPool } from '../shared/adapters/owner-pool.ts';
import type { AccountId } from '../shared/domain/ids.ts';
import { addOwner } from '../shared/use-cases/add-owner.ts';

export interface OwnerCredentials {
  readonly email: string;
  readonly password: string;
}

/** The local account's owner: PROGNOZ_OWNER_EMAIL / PROGNOZ_OWNER_PASSWORD, or these defaults (printed at start). */
export const localOwnerCredentials = (env: NodeJS.ProcessEnv = process.env): OwnerCredentials => ({
  email: env.PROGNOZ_OWNER_EMAIL ?? 'owner@prognoz.local',
  password: env.PROGNOZ_OWNER_PASSWORD ?? 'prognoz-owner-2026',
});

/**
 * Makes `credentials` an owner of `account` as the admin CLI's `owners add` does on AWS, except
 * that the password is set outright (and again at every start) instead of emailed.
 */
export const ensureOwner = async (
  poolId: string,
  credentials: OwnerCredentials,
  account: AccountId,
  accounts: AccountStore,
  nowMs: number,
): Promise<string> => {
  const added = await addOwner(
    { pool: cognitoOwnerPool(poolId), accounts, clock: { now: () => nowMs } },
    { account, email: credentials.email, firstPassword: { kind: 'permanent', password: credentials.password } },
  );
  if (!added.ok) throw new Error(`the local owner: ${added.error}`);
  return added.value.sub;
};
