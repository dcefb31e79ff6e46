import type { AccountStore } from '../ports/account-store.ts';
import type { FirstPassword, OwnerPool } from '../ports/owner-pool.ts';
import type { Clock } from '../domain/clock.ts';
import type { AccountId } from '../domain/ids.ts';
import { err, ok, type Result } from '../domain/result.ts';

export interface AddOwnerDeps {
  readonly pool: OwnerPool;
  readonly accounts: AccountStore;
  readonly clock: Clock;
}

export interface AddOwnerRequest {
  readonly account: AccountId;
  readonly email: string;
  readonly firstPassword: FirstPassword;
}

export interface AddedOwner {
  readonly sub: string;
  readonly email: string;
  readonly status: string;
  /** False when the pool had the user already (added again: the link is renewed). */
  readonly created: boolean;
}

/**
 * Makes `email` an owner of the account (interface: Owners): the user in the owners' pool, created
 * with their first password, then linked to the account by their user id. A user who owns another
 * account is refused, not moved: one sign-in reaches one account. The admin CLI (`owners add`) and
 * the local runtime's owner both come through here.
 */
export const addOwner = async (deps: AddOwnerDeps, request: AddOwnerRequest): Promise<Result<AddedOwner, string>> => {
  const user = await deps.pool.addUser(request.email, request.firstPassword);
  const linked = await deps.accounts.accountForOwner(user.sub);
  if (linked !== null && linked.account !== request.account) {
    return err(`${request.email} is already the owner of account ${linked.account}; one sign-in reaches one account`);
  }
  await deps.accounts.linkOwner(user.sub, request.account, deps.clock.now(), request.email);
  return ok({ sub: user.sub, email: request.email, status: user.status, created: user.created });
};
