import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { dynamoAccountStore } from '../shared/adapters/account-store.ts';
import { AccountExists } from '../shared/ports/account-store.ts';
import { cognitoOwnerPool } from '../shared/adapters/owner-pool.ts';
import type { Clock } from '../shared/domain/clock.ts';
import { asAccountId } from '../shared/domain/ids.ts';
import { generateToken, looksLikeToken } from '../shared/domain/tokens.ts';
import { ensureOwner, localOwnerCredentials, type OwnerCredentials } from './owner.ts';

/** The account `npm start` creates; stable so that a restart keeps its predictions visible. */
export const LOCAL_ACCOUNT_ID = '00000000-0000-4000-8000-000000000001';
/** What the local account starts with: 1,000 ₽, so that it can run predictions at once. */
const LOCAL_ACCOUNT_BALANCE_KOPECKS = 100_000;

export interface LocalAccount {
  readonly apiToken: string;
  readonly owner: OwnerCredentials;
}

/**
 * The local account, made once and kept across restarts: its balance, an API token (`apiToken`
 * when given, else a new one) and its owner in the owners' pool the authorizer trusts, for the
 * console. The owner is an operator too: the one person of a local run operates its fleets.
 */
export const prepareLocalAccount = async (options: {
  readonly tableName: string;
  readonly ownerPoolId: string;
  readonly apiToken: string | undefined;
  readonly clock: Clock;
}): Promise<LocalAccount> => {
  if (options.apiToken !== undefined && !looksLikeToken(options.apiToken)) {
    throw new Error(
      `PROGNOZ_API_TOKEN is not a prognoz API token (pgz_… with a valid checksum); one that is: ${generateToken()}`,
    );
  }
  const account = asAccountId(LOCAL_ACCOUNT_ID);
  const accounts = dynamoAccountStore(options.tableName);
  await accounts
    .createAccount(account, options.clock.now(), { balanceKopecks: LOCAL_ACCOUNT_BALANCE_KOPECKS })
    .catch((error: unknown) => {
      // Kept from an earlier run on the same data folder.
      if (!(error instanceof AccountExists)) throw error;
    });
  const apiToken = options.apiToken ?? generateToken();
  await accounts.addToken(account, apiToken, options.clock.now());
  const owner = localOwnerCredentials();
  await ensureOwner(options.ownerPoolId, owner, account, accounts, options.clock.now());
  await cognitoOwnerPool(options.ownerPoolId, new CognitoIdentityProviderClient({})).makeOperator(owner.email);
  return { apiToken, owner };
};
